package registry

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry/gitstore"
)

// PathState says how a folder's files on disk compare with HEAD's commit.
type PathState int

// The answers of HeadState, from "nothing to restore" to "not git's at all".
const (
	// PathCommitted: every file is in HEAD's tree with the same content.
	PathCommitted PathState = iota
	// PathModified: a file is in HEAD's tree but differs on disk (or could
	// not be read): `git checkout -- DIR` brings HEAD's back.
	PathModified
	// PathUntracked: a file is not in HEAD's tree (or there is no HEAD
	// commit): git has nothing to restore it from.
	PathUntracked
)

func (s PathState) String() string {
	switch s {
	case PathCommitted:
		return "committed"
	case PathModified:
		return "modified"
	case PathUntracked:
		return "untracked"
	}
	return fmt.Sprintf("PathState(%d)", int(s))
}

// HeadState compares the named files of dir (registry-relative, slash
// form) with HEAD's commit, in order: the first file not at HEAD makes the
// folder untracked, the first that differs makes it modified. A caller
// about to tell the user how to repair generated files learns whether git
// can restore them first. Read failures count as differences, so the answer
// errs toward a restore; the error is only for a dir outside the registry.
func (r *Registry) HeadState(dir string, names ...string) (PathState, error) {
	if !filepath.IsLocal(filepath.FromSlash(dir)) {
		return PathCommitted, fmt.Errorf("%w: %s is not a folder inside the registry", errkind.ErrInvalid, dir)
	}
	tree, err := r.headCommitTree()
	if err != nil {
		return PathUntracked, nil
	}
	for _, name := range names {
		rel := path.Join(dir, name)
		head, ok, err := r.blobAt(tree, rel)
		if !ok {
			return PathUntracked, nil
		}
		disk, derr := os.ReadFile(r.abs(rel))
		if err != nil || derr != nil || !bytes.Equal(head, disk) {
			return PathModified, nil
		}
	}
	return PathCommitted, nil
}

// headCommitTree is the tree of the registry's last commit: the one HEAD
// points at, detached or not (the registry's branch in the ref layout).
func (r *Registry) headCommitTree() (*gitstore.Tree, error) {
	var h gitstore.Hash
	if r.ref != "" {
		_, head, err := r.Head()
		if err != nil {
			return nil, err
		}
		h = head
	} else {
		head, err := r.git.HeadCommit()
		if err != nil {
			return nil, err
		}
		h = head
	}
	return r.git.CommitTree(h)
}
