package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// withLock runs fn with git's own lock file for target held, so plain git
// commands running at the same moment see the old file or the new one. fn
// writes the new content to the lock file, which is then renamed over target.
// While megagit holds a git lock, a marker in markerDir names it and
// megagit's pid, so a lock left by a killed megagit is recognised and
// removed instead of blocking every later write; a lock without a marker
// belongs to git and is only waited for.
func withLock(target, markerDir string, fn func(f *os.File) error) error {
	lock := target + ".lock"
	marker := os.DevNull // a store that only reads notes nothing
	if markerDir != "" {
		marker = LockNotePath(markerDir, lock)
		// A marker left by a killed megagit: its lock (if any) is stale.
		if staleOwnLock(marker, lock) {
			_ = os.Remove(lock)
			_ = os.Remove(marker)
		}
		// The marker is written before the lock is taken, so a process killed at
		// any moment leaves either nothing or a marker naming its dead pid.
		_ = os.WriteFile(marker, []byte(fmt.Sprintf("%d\n%s\n", os.Getpid(), lock)), 0o644)
	}
	var f *os.File
	var err error
	for i := 0; ; i++ {
		f, err = os.OpenFile(lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i >= 100 {
			removeNote(marker)
			return fmt.Errorf("%s is locked by another git process (remove it if no git command is running): %w", lock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(lock)
		}
		removeNote(marker)
	}()
	if err := fn(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	ok = true
	return os.Rename(lock, target)
}

// LockNotePath is the note in markerDir that names lock's owner.
func LockNotePath(markerDir, lock string) string {
	sum := sha256.Sum256([]byte(lock))
	return filepath.Join(markerDir, "gitlock-"+hex.EncodeToString(sum[:6]))
}

// staleOwnLock reports whether marker says lock was taken by a megagit
// process that is no longer running. A lock of a live megagit, or of git
// (no marker), is never called stale; a reused pid only keeps a stale lock
// a little longer.
func staleOwnLock(marker, lock string) bool {
	pid, path, ok := readLockMarker(marker)
	if !ok || path != lock || pid == os.Getpid() {
		return false
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// readLockMarker reads a note withLock writes: its pid and lock path.
func readLockMarker(marker string) (pid int, lock string, ok bool) {
	data, err := os.ReadFile(marker)
	if err != nil {
		return 0, "", false
	}
	pidStr, lock, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	pid, err = strconv.Atoi(pidStr)
	return pid, lock, err == nil && lock != ""
}

func removeNote(marker string) {
	if marker != os.DevNull {
		_ = os.Remove(marker)
	}
}

// StaleLocks lists the git lock files (like refs/heads/main.lock) that a
// killed megagit left behind, as the store's notes name them.
func (s *Store) StaleLocks() []string {
	var out []string
	for _, m := range s.staleLockMarkers() {
		if _, err := os.Lstat(m.lock); err == nil {
			out = append(out, m.lock)
		}
	}
	sort.Strings(out)
	return out
}

// RemoveStaleLocks deletes what StaleLocks lists, with the notes that
// name them, and returns the removed locks. The caller holds whatever
// lock keeps a live megagit from taking one of them over meanwhile.
func (s *Store) RemoveStaleLocks() []string {
	var out []string
	for _, m := range s.staleLockMarkers() {
		if err := os.Remove(m.lock); err == nil {
			out = append(out, m.lock)
		}
		_ = os.Remove(m.marker)
	}
	sort.Strings(out)
	return out
}

type lockMarker struct{ marker, lock string }

// staleLockMarkers are withLock's notes whose process is gone.
func (s *Store) staleLockMarkers() []lockMarker {
	if s.notes == "" {
		return nil
	}
	var out []lockMarker
	markers, _ := filepath.Glob(filepath.Join(s.notes, "gitlock-*"))
	for _, m := range markers {
		if _, lock, ok := readLockMarker(m); ok && staleOwnLock(m, lock) {
			out = append(out, lockMarker{marker: m, lock: lock})
		}
	}
	return out
}
