package registry

import (
	"fmt"
	"os"
)

// Hooks for the tests in package registry_test, which build registries
// with registrytest (an internal test cannot import it: it imports registry).

func (r *Registry) Abs(rel string) string { return r.abs(rel) }

func (r *Registry) JournalPath() string { return r.journalPath() }

type Journal = journal

var OpenAt = openAt

// LeaveGitLock leaves what a megagit process pid killed while writing
// target (a git file) under withGitLock leaves: the lock and its note.
func (r *Registry) LeaveGitLock(target string, pid int) error {
	lock := target + ".lock"
	if err := os.WriteFile(lock, []byte("0123"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(gitLockMarkerPath(r.gitLockMarker(), lock), []byte(fmt.Sprintf("%d\n%s\n", pid, lock)), 0o644)
}
