package registry

import (
	"fmt"
	"os"

	"github.com/megagit/megagit/registry/gitstore"
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
	return os.WriteFile(gitstore.LockNotePath(r.gitLockMarker(), lock), []byte(fmt.Sprintf("%d\n%s\n", pid, lock)), 0o644)
}

// WriteRaw commits changes in one commit under the lock, as every writer
// of the registry does.
func (r *Registry) WriteRaw(message string, changes []Change) (gitstore.Hash, error) {
	return r.Write(func() (string, []Change, error) { return message, changes, nil })
}
