package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Lock is the registry's single-writer lock: an flock on .megagit/local/lock.
// The kernel drops it when the holder dies, so a crashed process never leaves
// a stale lock behind; the file's content (pid, time) is only informational.
type Lock struct {
	f *os.File
}

// LockInfo describes who holds (or last held) the lock, for doctor.
type LockInfo struct {
	Held bool
	PID  int
	When string
}

// lockFile is the name of the single-writer lock inside .megagit/local/.
const lockFile = "lock"

func (d Dir) lockPath() string { return filepath.Join(d.path, lockFile) }

// Acquire waits up to timeout for the lock.
func (d Dir) Acquire(timeout time.Duration) (*Lock, error) {
	return d.acquire(d.lockPath(), timeout)
}

// AcquireFile waits up to timeout for an flock on another file under
// .megagit/local/ (such as registry's sync.lock), for work that must be
// serialised without holding up writers of the main lock. On timeout the
// error reports the main lock's holder, as LockState does.
func (d Dir) AcquireFile(file string, timeout time.Duration) (*Lock, error) {
	p, err := d.Resolve(file)
	if err != nil {
		return nil, err
	}
	return d.acquire(p, timeout)
}

func (d Dir) acquire(path string, timeout time.Duration) (*Lock, error) {
	if err := MkdirAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, filePerm(path, 0o600))
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	wait := 2 * time.Millisecond
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			info := d.LockState()
			return nil, fmt.Errorf("%w (pid %d since %s); waited %s", ErrLocked, info.PID, info.When, timeout)
		}
		time.Sleep(wait)
		if wait < 50*time.Millisecond {
			wait *= 2
		}
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0)
	return &Lock{f: f}, nil
}

// Release drops the lock; safe on nil.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// LockState reports whether another process holds the lock right now.
func (d Dir) LockState() LockInfo {
	var info LockInfo
	data, err := os.ReadFile(d.lockPath())
	if err != nil {
		return info
	}
	fields := strings.Fields(string(data))
	if len(fields) >= 2 {
		info.PID, _ = strconv.Atoi(fields[0])
		info.When = fields[1]
	}
	f, err := os.Open(d.lockPath())
	if err != nil {
		return info
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		info.Held = true
	} else {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	}
	return info
}
