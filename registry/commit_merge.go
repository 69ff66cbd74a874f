package registry

import (
	"github.com/megagit/megagit/registry/gitstore"
)

// CommitMerge moves branch from ours to a sync's result through the same
// redo journal as every other write, so a crash half way is finished (or
// dropped) by the next megagit command: the result is theirs for a
// fast-forward (ff), else a new merge commit with parents ours and theirs
// holding our tree with changes applied and message. The working files of
// changes are written too. The caller holds the lock, has run
// RecoverLocked and checked the merge has no conflicts; a changed file
// with the user's own edits is refused (ErrDirty) before anything is
// written.
func (r *Registry) CommitMerge(branch gitstore.RefName, ours, theirs gitstore.Hash, ff bool, message string, changes []Change) (gitstore.Hash, error) {
	tree, err := r.cleanTree(ours, changes)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	target := theirs
	if !ff {
		if target, err = r.writeCommit(tree, changes, message, "merge commit", ours, theirs); err != nil {
			return gitstore.ZeroHash, err
		}
	}
	if err := r.journalAndFinish(branch, ours, target, changes); err != nil {
		return gitstore.ZeroHash, err
	}
	return target, nil
}
