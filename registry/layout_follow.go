package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// checkoutFile, in the local folder, holds the commit of the registry's
// branch that the files in .megagit/ reflect (the ref layout only).
const checkoutFile = "checkout"

func (r *Registry) checkoutPath() string { return r.LocalDir() + "/" + checkoutFile }

// markCheckout records that .megagit/ reflects commit h.
func (r *Registry) markCheckout(h gitstore.Hash) error {
	if err := local.WriteFileAtomic(r.checkoutPath(), []byte(h.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", r.checkoutPath(), err)
	}
	return nil
}

// needsFollow reports whether the registry's branch moved away from what
// .megagit/ reflects: a merge or commit made with plain git in a worktree
// of the branch, or a `git fetch` and `git branch -f`.
func (r *Registry) needsFollow() bool {
	if r.ref == "" {
		return false
	}
	_, head, err := r.Head()
	if err != nil || head.IsZero() {
		return false
	}
	seen, _ := os.ReadFile(r.checkoutPath())
	return strings.TrimSpace(string(seen)) != head.String()
}

// followLocked brings the files in .megagit/ up to the registry's branch
// when it moved outside megagit, as git checkout would: a file that still
// holds what the last known commit had is updated (or removed); one that
// already holds the new content is left; one with other content is the
// user's edit and is kept, with a warning (a write that must change it is
// then refused). Files outside .megagit/ are never written. The caller
// holds the lock.
func (r *Registry) followLocked() error {
	if !r.needsFollow() {
		return nil
	}
	_, head, err := r.Head()
	if err != nil {
		return err
	}
	newTree, err := r.CommitTree(head)
	if err != nil {
		return err
	}
	var oldTree *gitstore.Tree
	if seen, err := os.ReadFile(r.checkoutPath()); err == nil && gitstore.IsHash(strings.TrimSpace(string(seen))) {
		// A commit gone (gc) reads as an empty base: every file is then
		// either the branch's already or kept.
		oldTree, _ = r.CommitTree(gitstore.NewHash(strings.TrimSpace(string(seen))))
	}
	diff, err := gitstore.DiffPaths(oldTree, newTree)
	if err != nil {
		return fmt.Errorf("compare %s with what .megagit/ holds: %w", r.ref.Short(), err)
	}
	var kept, outside []string
	for _, name := range diff {
		rel := r.RelPath(name)
		if !r.onDisk(rel) {
			if !treeOnly[rel] {
				outside = append(outside, name)
			}
			continue
		}
		from, inFrom, err := r.blobAt(oldTree, rel)
		if err != nil {
			return err
		}
		to, inTo, err := r.blobAt(newTree, rel)
		if err != nil {
			return err
		}
		disk, derr := os.ReadFile(r.abs(rel))
		onDisk := derr == nil
		if derr != nil && !errors.Is(derr, os.ErrNotExist) {
			return derr
		}
		switch {
		case onDisk == inTo && bytes.Equal(disk, to):
			continue // already the branch's
		case onDisk == inFrom && bytes.Equal(disk, from):
			if !inTo {
				if err := os.Remove(r.abs(rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				continue
			}
			if err := local.WriteFileAtomic(r.abs(rel), to, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", rel, err)
			}
		default:
			kept = append(kept, rel)
		}
	}
	if len(outside) > 0 {
		r.warn("branch %s holds files outside %s/, which megagit does not check out: %s", r.ref.Short(), local.MetaDir, strings.Join(outside, ", "))
	}
	if len(kept) > 0 {
		r.warn("branch %s moved; kept your own edits of %s (they differ from the branch)", r.ref.Short(), strings.Join(kept, ", "))
	}
	return r.markCheckout(head)
}
