package local_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
)

// TestReadRegularRefusesWhatIsNotAFile checks a FIFO (which would block a
// plain open) and a device (which never ends) are refused by name before a
// byte is read, and a file over the cap is refused with the cap.
func TestReadRegularRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 2048)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero is a character device, not a regular file"},
		{dir, dir + " is a folder, not a regular file"},
		{big, big + " is larger than 1 KiB"},
	}
	for _, tt := range tests {
		_, err := local.ReadRegular(tt.path, 1024)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("ReadRegular(%s) = %v, want an invalid-input error with %q", tt.path, err, tt.want)
		}
	}
	if data, err := local.ReadRegular(big, 4096); err != nil || len(data) != 2048 {
		t.Errorf("ReadRegular under the cap = %d bytes, %v", len(data), err)
	}
	if _, err := local.ReadRegular(filepath.Join(dir, "none"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

// TestOpenTailReadsWholeLinesOfTheEnd checks a file over the cap is read
// from the first whole line of its last max bytes.
func TestOpenTailReadsWholeLinesOfTheEnd(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte("first line\nsecond\nthird\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		max     int64
		want    string
		skipped int64
	}{
		{100, "first line\nsecond\nthird\n", 0},
		{14, "second\nthird\n", 11},
		{13, "third\n", 18},
	} {
		r, skipped, err := local.OpenTail(p, tt.max)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(data) != tt.want || skipped != tt.skipped {
			t.Errorf("OpenTail(max %d) = %q, skipped %d, %v; want %q, skipped %d", tt.max, data, skipped, err, tt.want, tt.skipped)
		}
	}
	// The cut inside a line longer than the reader's buffer: that line is
	// skipped to its end; a tail with no newline at all reads empty.
	long := strings.Repeat("a", 200_000) + "\nlast\n" + strings.Repeat("b", 300_000)
	if err := os.WriteFile(p, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		max     int64
		want    string
		skipped int64
	}{
		{400_000, "last\n" + strings.Repeat("b", 300_000), 200_001},
		{200_000, "", int64(len(long))},
	} {
		r, skipped, err := local.OpenTail(p, tt.max)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(data) != tt.want || skipped != tt.skipped {
			t.Errorf("long lines, OpenTail(max %d) = %d bytes, skipped %d, %v; want %d bytes, skipped %d", tt.max, len(data), skipped, err, len(tt.want), tt.skipped)
		}
	}
	if _, _, err := local.OpenTail("/dev/zero", 10); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("OpenTail(/dev/zero) = %v", err)
	}
}

// TestInsideRefusesSymlinksOut checks one error, never the target's path
// or content, for a symlink (or a dangling one) leading out of the root,
// and that links inside it are followed.
func TestInsideRefusesSymlinksOut(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "reg")
	outside := filepath.Join(base, "secret.txt")
	must(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
	must(t, os.WriteFile(outside, []byte("TOP SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "d", "real"), []byte("ok"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "d", "out")))
	must(t, os.Symlink(filepath.Join(base, "nowhere"), filepath.Join(root, "d", "dangling")))
	must(t, os.Symlink("real", filepath.Join(root, "d", "in")))
	must(t, os.Symlink(base, filepath.Join(root, "up")))
	for _, rel := range []string{"d/out", "d/dangling", "up/secret.txt"} {
		_, err := local.ReadInside(root, rel, 100)
		want := rel + " is a symlink to outside the registry; megagit does not follow it"
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, local.ErrOutside) {
			t.Errorf("ReadInside(%s) = %v, want %q", rel, err, want)
		} else if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), base) {
			t.Errorf("ReadInside(%s) names what is outside: %v", rel, err)
		}
	}
	if data, err := local.ReadInside(root, "d/in", 100); err != nil || string(data) != "ok" {
		t.Errorf("a symlink inside: %q %v", data, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
