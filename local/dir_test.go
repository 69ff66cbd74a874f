package local

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/errkind"
)

func TestOpenPath(t *testing.T) {
	root := t.TempDir()
	if got, want := Open(root, 0).Path(), filepath.Join(root, ".megagit", "local"); got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	t.Chdir(root)
	if got, want := Open("sub", 0).Path(), filepath.Join(root, "sub", ".megagit", "local"); got != want {
		t.Errorf("relative root: Path = %q, want %q", got, want)
	}
}

func TestResolve(t *testing.T) {
	d := Open(t.TempDir(), 0)
	for _, tt := range []struct {
		name string
		want string // relative to d.Path(); "" means refused
	}{
		{"a.json", "a.json"},
		{"sessions/a.json", "sessions/a.json"},
		{"a/../b", "b"},
		{"./a", "a"},
		{"..x", "..x"},
		{"../x", ""},
		{"..", ""},
		{".", ""},
		{"", ""},
		{"a/../../x", ""},
		{"/etc/passwd", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.Resolve(tt.name)
			if tt.want == "" {
				if !errors.Is(err, errkind.ErrInvalid) || got != "" {
					t.Fatalf("Resolve(%q) = %q, %v; want errkind.ErrInvalid", tt.name, got, err)
				}
				return
			}
			if want := filepath.Join(d.Path(), filepath.FromSlash(tt.want)); err != nil || got != want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.name, got, err, want)
			}
		})
	}
}

func TestReadWrite(t *testing.T) {
	d := Open(t.TempDir(), 0)
	if err := d.Write("sessions/a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, err := d.Read("sessions/a.json"); err != nil || string(data) != "{}" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	if _, err := d.Read("missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	for _, bad := range []string{"../config.yaml", "/etc/passwd", "", "a/../../x"} {
		if err := d.Write(bad, nil); !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("Write(%q) = %v, want errkind.ErrInvalid", bad, err)
		}
		if _, err := d.Read(bad); !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("Read(%q) = %v, want errkind.ErrInvalid", bad, err)
		}
		if err := d.Append(bad, []byte("x"), 0); !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("Append(%q) = %v, want errkind.ErrInvalid", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(d.Path()), "config.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused name still wrote outside the folder: %v", err)
	}
}

func TestAppend(t *testing.T) {
	t.Run("newline", func(t *testing.T) {
		d := Open(t.TempDir(), 0)
		for _, line := range []string{"a", "b\n", "c\n\n", ""} {
			if err := d.Append("log", []byte(line), 0); err != nil {
				t.Fatal(err)
			}
		}
		if data, _ := d.Read("log"); string(data) != "a\nb\nc\n\n" {
			t.Fatalf("log = %q", data)
		}
	})

	t.Run("unbounded", func(t *testing.T) {
		d := Open(t.TempDir(), 0)
		for i := range 100 {
			if err := d.Append("logs/log", []byte(fmt.Sprintf("line %03d", i)), 0); err != nil {
				t.Fatal(err)
			}
		}
		if data, _ := d.Read("logs/log"); len(data) != 100*9 {
			t.Fatalf("unbounded log has %d bytes, want %d", len(data), 100*9)
		}
	})

	// Past maxBytes the log is cut to the newest whole lines in maxBytes/2.
	t.Run("trim", func(t *testing.T) {
		d := Open(t.TempDir(), 0)
		const maxBytes = 100 // 11 lines of 9 bytes fit; the 12th trims
		for i := range 11 {
			if err := d.Append("log", []byte(fmt.Sprintf("line %03d", i)), maxBytes); err != nil {
				t.Fatal(err)
			}
		}
		if data, _ := d.Read("log"); len(data) != 99 {
			t.Fatalf("before the bound: %d bytes, want 99", len(data))
		}
		if err := d.Append("log", []byte("line 011"), maxBytes); err != nil {
			t.Fatal(err)
		}
		// The last 50 bytes start mid-line in "line 006"; that partial
		// line is dropped, leaving lines 007..011.
		data, _ := d.Read("log")
		var want strings.Builder
		for i := 7; i <= 11; i++ {
			fmt.Fprintf(&want, "line %03d\n", i)
		}
		if string(data) != want.String() {
			t.Fatalf("trimmed log = %q, want %q", data, want.String())
		}
		ents, _ := os.ReadDir(d.Path())
		if len(ents) != 2 { // log and the lock taken to trim
			t.Errorf("folder holds %v, want log and lock only", ents)
		}
	})

	t.Run("many", func(t *testing.T) {
		d := Open(t.TempDir(), 0)
		for i := range 200 {
			if err := d.Append("log", []byte(fmt.Sprintf("line %03d", i)), 1000); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := d.Read("log")
		if len(data) > 1000 || !bytes.HasSuffix(data, []byte("line 199\n")) || !bytes.HasPrefix(data, []byte("line ")) {
			t.Errorf("bounded log (%d bytes) ends %q", len(data), data[max(0, len(data)-20):])
		}
	})
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f")
	for _, data := range []string{"first, longer", "second"} {
		if err := WriteFileAtomic(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", st.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("temp files left behind: %v", ents)
	}
}

// TestWriteAtomicFailureKeepsTheOldFile: a writer that fails part way,
// durable or not, leaves the old file whole and no temp file behind; a
// write error the buffer held is reported at the flush.
func TestWriteAtomicFailureKeepsTheOldFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteFileAtomic(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for _, durable := range []bool{true, false} {
		err := WriteAtomic(p, 0o644, durable, func(w io.Writer) error {
			w.Write([]byte("half of the new"))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("durable %v: err %v, want boom", durable, err)
		}
		if got, _ := os.ReadFile(p); string(got) != "old" {
			t.Fatalf("durable %v: file %q, want the old one", durable, got)
		}
		if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
			t.Fatalf("durable %v: temp files left behind: %v", durable, ents)
		}
	}
	if err := WriteAtomic(p, 0o644, false, func(w io.Writer) error {
		_, err := w.Write([]byte("new"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Fatalf("file %q, want new", got)
	}
}

// A .megagit/local that is a symlink (a teammate's commit, into a skill
// folder) or a file: nothing is read or written through it, whichever way
// megagit gets there, and FixLocalDir makes it a folder again.
func TestLocalDirNotAFolder(t *testing.T) {
	root := t.TempDir()
	helper := filepath.Join(root, "skills", "helper")
	if err := os.MkdirAll(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(helper, "hook-settings.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, MetaDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../skills/helper", filepath.Join(root, filepath.FromSlash(MachineDir))); err != nil {
		t.Fatal(err)
	}
	d := Open(root, 0)
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrLocalDir) || !errors.Is(err, errkind.ErrInvalid) || !strings.Contains(err.Error(), "local is a symlink, not a folder") {
			t.Errorf("%s: err = %v, want ErrLocalDir naming the symlink", what, err)
		}
	}
	_, err := d.Read("hook-settings.json")
	refused("Read", err)
	refused("Write", d.Write("sessions/s1.json", []byte("x")))
	refused("Append", d.Append("hook.log", []byte("x"), 0))
	refused("WriteCache", d.WriteCache("route-index.bin", []byte("x")))
	refused("WriteFileAtomic", WriteFileAtomic(filepath.Join(d.Path(), "journal.json"), []byte("x"), 0o600))
	_, err = d.Acquire(0)
	refused("Acquire", err)
	_, err = d.OpenLog("serve.log", 0)
	refused("OpenLog", err)
	ents, _ := os.ReadDir(helper)
	if len(ents) != 1 {
		t.Errorf("the skill folder holds %d files, want 1: something was written through the symlink", len(ents))
	}
	if got := LocalDirKind(root); got != "a symlink" {
		t.Errorf("LocalDirKind = %q, want a symlink", got)
	}
	if was, moved, err := FixLocalDir(root); err != nil || was != "a symlink" || moved != "" {
		t.Fatalf("FixLocalDir = %q, %q, %v", was, moved, err)
	}
	if err := d.Write("sessions/s1.json", []byte("x")); err != nil {
		t.Errorf("after the fix: %v", err)
	}
	if _, err := os.Stat(filepath.Join(helper, "hook-settings.json")); err != nil {
		t.Errorf("the fix removed what the symlink pointed to: %v", err)
	}

	// A file in its place is moved aside, never lost.
	root = t.TempDir()
	if err := os.Mkdir(filepath.Join(root, MetaDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(MachineDir)), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused = func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrLocalDir) || !strings.Contains(err.Error(), "local is a regular file, not a folder") {
			t.Errorf("%s: err = %v, want ErrLocalDir naming the file", what, err)
		}
	}
	refused("Write", Open(root, 0).Write("x", nil))
	was, moved, err := FixLocalDir(root)
	if err != nil || was != "a regular file" || filepath.Base(moved) != "local.file" {
		t.Fatalf("FixLocalDir = %q, %q, %v", was, moved, err)
	}
	if data, err := os.ReadFile(moved); err != nil || string(data) != "mine" {
		t.Errorf("moved file = %q, %v", data, err)
	}
}
