package registry

import (
	"cmp"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/megagit/megagit/registry/gitstore"
)

func (r *Registry) gitLockMarker() string { return r.LocalDir() }

// updateIndex points the index entries of the changed paths at the content
// now on disk, leaving every other entry (the user's staged work) alone.
func (r *Registry) updateIndex(changes []Change) error {
	edits := make([]gitstore.IndexEdit, len(changes))
	for i, c := range changes {
		edits[i] = gitstore.IndexEdit{Path: r.GitPath(c.Path), Data: c.Data, Delete: c.Delete, Mode: c.Mode, File: r.abs(c.Path)}
	}
	return r.git.UpdateIndex(edits)
}

// setRef moves branch from old (zero = must not exist yet) to new, checked
// under git's ref lock so a concurrent plain-git commit is never lost.
func (r *Registry) setRef(branch gitstore.RefName, old, new gitstore.Hash) error {
	return r.git.SetRef(branch, old, new)
}

// HasIdentity says whether git has an identity to author megagit's
// commits with (nil), or why not (ErrNoIdentity, with the fix).
func (r *Registry) HasIdentity() error {
	_, err := r.signature(time.Now())
	return err
}

// signature resolves author/committer like git: GIT_AUTHOR_* env, then the
// repository config, then the global config.
func (r *Registry) signature(now time.Time) (gitstore.Signature, error) {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" || email == "" {
		n, e := r.git.Identity()
		name, email = cmp.Or(name, n), cmp.Or(email, e)
	}
	if strings.TrimSpace(name) == "" || strings.TrimSpace(email) == "" {
		return gitstore.Signature{}, fmt.Errorf("%w: set one with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`", ErrNoIdentity)
	}
	return gitstore.Signature{Name: name, Email: email, When: now}, nil
}
