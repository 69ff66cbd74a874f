package local

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/errkind"
)

func TestLock(t *testing.T) {
	d := Open(t.TempDir(), 0)
	if info := d.LockState(); info != (LockInfo{}) {
		t.Fatalf("no lock file yet: %+v", info)
	}
	l, err := d.Acquire(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The file says who holds it: "pid time".
	data, err := os.ReadFile(filepath.Join(d.Path(), "lock"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 || fields[0] != strconv.Itoa(os.Getpid()) || !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("lock file %q", data)
	}
	if _, err := time.Parse(time.RFC3339, fields[1]); err != nil {
		t.Fatalf("lock time: %v", err)
	}
	info := d.LockState()
	if !info.Held || info.PID != os.Getpid() || info.When != fields[1] {
		t.Fatalf("LockState = %+v", info)
	}

	// A second open of the file is another flock owner, as another process is.
	_, err = d.Acquire(20 * time.Millisecond)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "(pid "+fields[0]+" since "+fields[1]+"); waited 20ms") {
		t.Fatalf("second Acquire: %v, want ErrLocked naming the holder", err)
	}
	// Trimming a log needs the lock; the line itself is still appended.
	if err := d.Append("log", []byte(strings.Repeat("x", 20)), 10); !errors.Is(err, ErrLocked) {
		t.Fatalf("Append that trims under a held lock: %v, want ErrLocked", err)
	}
	if data, _ := d.Read("log"); len(data) != 21 {
		t.Fatalf("log %q", data)
	}

	// Another lock file is independent of the main one.
	s, err := d.AcquireFile("sync.lock", 0)
	if err != nil {
		t.Fatalf("AcquireFile while the main lock is held: %v", err)
	}
	if _, err := d.AcquireFile("sync.lock", 0); !errors.Is(err, ErrLocked) {
		t.Fatalf("second AcquireFile: %v, want ErrLocked", err)
	}
	s.Release()
	if _, err := d.AcquireFile("../sync.lock", 0); !errors.Is(err, errkind.ErrInvalid) {
		t.Fatalf("AcquireFile(../sync.lock) = %v, want errkind.ErrInvalid", err)
	}

	l.Release()
	l.Release() // twice is harmless
	var nilLock *Lock
	nilLock.Release()
	if d.LockState().Held {
		t.Fatal("LockState still held after Release")
	}
	l2, err := d.Acquire(0)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l2.Release()
}
