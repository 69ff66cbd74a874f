package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// recoverIfNeeded finishes or discards a commit a crashed writer left in its
// journal. It is cheap when there is no journal (one stat).
func (r *Registry) recoverIfNeeded() error {
	if _, err := os.Stat(r.journalPath()); errors.Is(err, os.ErrNotExist) && !r.needsFollow() {
		return nil
	}
	lock, err := r.Local().Acquire(2 * time.Second)
	if err != nil {
		return nil // a live writer owns the journal; it will finish it
	}
	defer lock.Release()
	_, err = r.RecoverLocked()
	return err
}

// RecoverLocked replays the journal; it reports whether there was one.
// The caller holds the lock: every writer (a sync too) calls it before
// reading HEAD, so it never builds on a half-finished write. In the ref
// layout it then brings .megagit/ up to the registry's branch (followLocked).
func (r *Registry) RecoverLocked() (bool, error) {
	had, err := r.replayJournal()
	if err != nil {
		return had, err
	}
	return had, r.followLocked()
}

func (r *Registry) replayJournal() (bool, error) {
	data, err := os.ReadFile(r.journalPath())
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		// A torn journal means the crash came before any file was touched.
		r.warn("discarded an unreadable journal of an interrupted write: %v", err)
		return true, os.Remove(r.journalPath())
	}
	branch, cur, err := r.Head()
	if err != nil {
		return true, err
	}
	curStr := ""
	if !cur.IsZero() {
		curStr = cur.String()
	}
	switch {
	case branch.String() != j.Branch:
		r.warn("discarded the journal of an interrupted write on %s: %s is checked out now", j.Branch, branch)
		return true, os.Remove(r.journalPath())
	case curStr == j.Commit || curStr == j.Parent:
		if _, err := r.repo.CommitObject(plumbing.NewHash(j.Commit)); err != nil {
			r.warn("discarded the journal of an interrupted write: its commit is missing: %v", err)
			return true, os.Remove(r.journalPath())
		}
		if err := r.finish(j); err != nil {
			return true, fmt.Errorf("finish interrupted write: %w", err)
		}
		r.warn("finished an interrupted write (commit %s)", j.Commit[:12])
		return true, nil
	default:
		r.warn("discarded the journal of an interrupted write: %s moved on since", branch.Short())
		return true, os.Remove(r.journalPath())
	}
}
