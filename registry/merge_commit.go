package registry

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// applyPlan moves the branch from ours to target through the same redo
// journal as every other write, so a crash half way is finished (or
// dropped) by the next megagit command: target is theirs for a
// fast-forward, or a new merge commit with parents ours and theirs. The
// caller holds the lock and has checked the plan has no conflicts.
func (r *Registry) applyPlan(plan *mergePlan, branch plumbing.ReferenceName, ours, theirs plumbing.Hash, ff bool, remote string) (plumbing.Hash, error) {
	tree, err := r.commitTree(ours)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	paths := make([]string, len(plan.changes))
	for i, c := range plan.changes {
		paths[i] = c.Path
	}
	if err := r.checkClean(tree, paths); err != nil {
		return plumbing.ZeroHash, err
	}
	target := theirs
	if !ff {
		if target, err = r.writeMergeCommit(plan, tree, ours, theirs, remote, branch); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if err := r.journalAndFinish(branch, ours, target, plan.changes); err != nil {
		return plumbing.ZeroHash, err
	}
	return target, nil
}

// writeMergeCommit stores the merge commit: our tree with the plan's
// changes, parents ours then theirs, a message listing what merged.
func (r *Registry) writeMergeCommit(plan *mergePlan, tree *object.Tree, ours, theirs plumbing.Hash, remote string, branch plumbing.ReferenceName) (plumbing.Hash, error) {
	sig, err := r.signature(time.Now())
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var root plumbing.Hash
	if tree != nil {
		root = tree.Hash
	}
	newTree, err := r.editTree(root, plan.changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	commit := &object.Commit{
		Author: sig, Committer: sig, TreeHash: newTree,
		Message:      mergeMessage(plan, remote, branch),
		ParentHashes: []plumbing.Hash{ours, theirs},
	}
	obj := r.repo.Storer.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := r.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write merge commit: %w", err)
	}
	return h, nil
}

func mergeMessage(plan *mergePlan, remote string, branch plumbing.ReferenceName) string {
	var b strings.Builder
	received, updated := 0, 0
	var names []string
	for _, s := range plan.skills {
		received += s.Received
		if s.Status != SyncUnchanged {
			updated++
			names = append(names, s.Skill)
		}
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "sync: merge %s/%s (%d verdict(s) received, %d skill(s) updated)\n\n", remote, branch.Short(), received, updated)
	b.WriteString("Ledgers merged by verdict id; evidence recomputed from the merged ledgers.\n\n")
	if len(names) == 0 {
		b.WriteString("Megagit-Action: sync\n")
	}
	for _, n := range names {
		fmt.Fprintf(&b, "Megagit-Action: sync\nMegagit-Skill: %s\n", n)
	}
	return b.String()
}
