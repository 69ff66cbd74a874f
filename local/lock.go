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

// Close closes this process's copy of the lock's file without unlocking
// it: the lock stays with the child process it was handed to (File),
// whereas Release would unlock it for both. Safe on nil.
func (l *Lock) Close() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close()
	l.f = nil
}

// LockState reports whether another process holds the lock right now.
func (d Dir) LockState() LockInfo { return lockState(d.lockPath()) }

func lockState(path string) LockInfo {
	var info LockInfo
	data, err := os.ReadFile(path)
	if err != nil {
		return info
	}
	fields := strings.Fields(string(data))
	if len(fields) >= 2 {
		info.PID, _ = strconv.Atoi(fields[0])
		info.When = fields[1]
	}
	f, err := os.Open(path)
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

// TryAcquireFile takes an flock on file under .megagit/local/ without
// waiting, for a lock its holder keeps for its whole life (a server):
// nil and no error when another process holds it. The file is the
// user's alone (0600), as the other per-user state.
func (d Dir) TryAcquireFile(file string) (*Lock, error) {
	p, err := d.Resolve(file)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	switch {
	case err == unix.EWOULDBLOCK:
		f.Close()
		return nil, nil
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	l := &Lock{f: f}
	l.stamp()
	return l, nil
}

// stamp writes who holds the lock now into its file: "pid time".
func (l *Lock) stamp() { l.HeldBy(os.Getpid()) }

// HeldBy names pid as the lock's holder in its file, for a lock handed to
// a child process (File): the child's pid, so that whoever reads the file
// signals the process that holds the lock.
func (l *Lock) HeldBy(pid int) {
	_ = l.f.Truncate(0)
	_, _ = l.f.WriteAt([]byte(fmt.Sprintf("%d %s\n", pid, time.Now().UTC().Format(time.RFC3339))), 0)
}

// File is the locked file, for handing the lock to a child process
// (exec.Cmd.ExtraFiles): the flock belongs to the open file, so the child
// holds it from its first instruction, and it lasts until every process
// holding the file has closed it or died.
func (l *Lock) File() *os.File { return l.f }

// AdoptLock takes over a lock a parent process handed down as fd (see
// File), checking that it is the lock file of d named file and that the
// flock is held; the file then names this process as the holder, and is
// closed on exec so no child of this process keeps the lock alive.
func (d Dir) AdoptLock(fd uintptr, file string) (*Lock, error) {
	p, err := d.Resolve(file)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(int(fd))
	f := os.NewFile(fd, p)
	if f == nil {
		return nil, fmt.Errorf("lock fd %d: not open", fd)
	}
	var held, want unix.Stat_t
	if err := unix.Fstat(int(fd), &held); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock fd %d: %w", fd, err)
	}
	if err := unix.Stat(p, &want); err != nil || held.Dev != want.Dev || held.Ino != want.Ino {
		f.Close()
		return nil, fmt.Errorf("lock fd %d is not %s", fd, p)
	}
	// Taking an flock this open file already holds succeeds at once; one
	// held through another open file fails.
	if err := unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock fd %d: %w", fd, ErrLocked)
	}
	l := &Lock{f: f}
	l.stamp()
	return l, nil
}

// FileLockState is LockState for another lock file under .megagit/local/
// (one AcquireFile or TryAcquireFile takes).
func (d Dir) FileLockState(file string) LockInfo {
	p, err := d.Resolve(file)
	if err != nil {
		return LockInfo{}
	}
	return lockState(p)
}
