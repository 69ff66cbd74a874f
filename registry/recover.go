package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/megagit/megagit/registry/gitstore"
)

// recoverIfNeeded finishes or discards a commit a crashed writer left in its
// journal. It is cheap when there is no journal (one stat).
func (r *Registry) recoverIfNeeded() error {
	follow := r.needsFollow()
	if _, err := os.Stat(r.journalPath()); errors.Is(err, os.ErrNotExist) && !follow {
		return nil
	}
	lock, err := r.Local().Acquire(2 * time.Second)
	if err != nil {
		return nil // a live writer owns the journal; it will finish it
	}
	defer lock.Release()
	had, err := r.RecoverLocked()
	r.recovered = had || follow
	return err
}

// Recovered reports whether Open finished or discarded a write a killed
// process left, or brought .megagit/ up to a branch that moved: the config
// file may have changed under the caller that read it before opening (a
// change of layout rewrites it), who then reads it again.
func (r *Registry) Recovered() bool { return r.recovered }

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
	if err := r.resumeLayout(j); err != nil {
		return true, fmt.Errorf("finish interrupted `megagit layout %s`: %w", j.Layout, err)
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
		if _, err := r.git.Commit(gitstore.NewHash(j.Commit)); err != nil {
			r.warn("discarded the journal of an interrupted write: its commit is missing: %v", err)
			return true, os.Remove(r.journalPath())
		}
		if err := r.finish(j); err != nil {
			return true, fmt.Errorf("finish interrupted write: %w", err)
		}
		if j.Layout != "" {
			r.warn("finished an interrupted `megagit layout %s`: the registry commits to %s now (commit %s)", j.Layout, branch.Short(), j.Commit[:12])
		} else {
			r.warn("finished an interrupted write (commit %s)", j.Commit[:12])
		}
		return true, nil
	default:
		r.warn("discarded the journal of an interrupted write: %s moved on since", branch.Short())
		return true, os.Remove(r.journalPath())
	}
}

// resumeLayout finishes the change of layout a journal of `megagit layout`
// names, when the process that wrote it was killed before it wrote (or
// removed) the layout files: only while the branch the journal's commit
// goes to is still where the journal found it, so the replay that follows
// applies the commit. Otherwise the replay discards the journal, and the
// layout stays as it is.
func (r *Registry) resumeLayout(j journal) error {
	at := func(h gitstore.Hash) bool {
		cur := ""
		if !h.IsZero() {
			cur = h.String()
		}
		return cur == j.Parent || cur == j.Commit
	}
	switch j.Layout {
	case LayoutRef:
		if r.ref != "" && r.ref.String() != j.Branch {
			return nil
		}
		branch := gitstore.RefName(j.Branch)
		if _, h, err := r.branchHead(branch); err != nil || !at(h) {
			return err
		}
		return r.enterRefLayout(branch)
	case LayoutBranch:
		branch, h, err := r.checkedOut()
		if err != nil || branch.String() != j.Branch || !at(h) {
			return err
		}
		return r.leaveRefLayout()
	}
	return nil
}
