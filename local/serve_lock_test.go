package local

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A lock held for a process's life and handed to a child: tried without
// waiting, the user's alone, adopted only through the open file holding it.
func TestTryAcquireAndAdopt(t *testing.T) {
	d := Open(t.TempDir(), 0)
	l, err := d.TryAcquireFile("serve.lock")
	if err != nil || l == nil {
		t.Fatalf("TryAcquireFile: %v, %v", l, err)
	}
	st, err := os.Stat(filepath.Join(d.Path(), "serve.lock"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("serve.lock: %v, %v; want 0600", st, err)
	}
	if again, err := d.TryAcquireFile("serve.lock"); again != nil || err != nil {
		t.Fatalf("second TryAcquireFile: %v, %v; want nil, nil (held)", again, err)
	}
	if info := d.FileLockState("serve.lock"); !info.Held || info.PID != os.Getpid() {
		t.Fatalf("FileLockState = %+v", info)
	}
	l.HeldBy(12345)
	if info := d.FileLockState("serve.lock"); info.PID != 12345 {
		t.Fatalf("after HeldBy: %+v", info)
	}

	// The same open file (as a child gets it through ExtraFiles) is adopted.
	fd, err := unix.Dup(int(l.File().Fd()))
	if err != nil {
		t.Fatal(err)
	}
	adopted, err := d.AdoptLock(uintptr(fd), "serve.lock")
	if err != nil {
		t.Fatalf("AdoptLock of the holder's file: %v", err)
	}
	if info := d.FileLockState("serve.lock"); info.PID != os.Getpid() {
		t.Fatalf("adopted lock names %d, want this process", info.PID)
	}
	// Closing the parent's copy keeps the lock; Release of the last frees it.
	l.Close()
	if again, _ := d.TryAcquireFile("serve.lock"); again != nil {
		t.Fatal("lock free after the parent closed its copy")
	}

	// Another open of the file holds no lock, and a file of another name
	// is no serve lock.
	other, err := os.Open(filepath.Join(d.Path(), "serve.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := d.AdoptLock(dup(t, other), "serve.lock"); !errors.Is(err, ErrLocked) {
		t.Fatalf("AdoptLock of an unlocked open: %v, want ErrLocked", err)
	}
	adopted.Release()
	wrong, err := os.Create(filepath.Join(d.Path(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if _, err := d.AdoptLock(dup(t, wrong), "serve.lock"); err == nil || !strings.Contains(err.Error(), "is not") {
		t.Fatalf("AdoptLock of another file: %v", err)
	}
	if again, err := d.TryAcquireFile("serve.lock"); again == nil || err != nil {
		t.Fatalf("after Release: %v, %v", again, err)
	}
}

// dup is a descriptor of f's open file for AdoptLock, which owns (and on
// failure closes) what it is given, as a child owns its fd 3.
func dup(t *testing.T, f *os.File) uintptr {
	t.Helper()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return uintptr(fd)
}

// A log another process writes through the same file stays under its
// bound, trimmed in place to its newest whole lines.
func TestLogFileBounded(t *testing.T) {
	d := Open(t.TempDir(), 0)
	l, err := d.OpenLog("serve.log", 1000)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := l.File().Stat()
	for i := range 200 {
		if _, err := l.Write([]byte("line " + strconv.Itoa(i) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	data, err := d.Read("serve.log")
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(filepath.Join(d.Path(), "serve.log"))
	if len(data) > 1000 || !bytes.HasSuffix(data, []byte("line 199\n")) || !bytes.HasPrefix(data, []byte("line ")) {
		t.Fatalf("log of %d bytes: %q", len(data), data)
	}
	if !os.SameFile(before, after) || after.Mode().Perm() != 0o600 {
		t.Fatalf("the log was replaced or is not 0600: %v", after.Mode())
	}
}
