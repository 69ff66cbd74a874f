package registry

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/errkind"
)

// detachedHead explains why megagit cannot commit on a detached HEAD: the
// git operation in progress that detached it and how to finish it, or how
// to get back on a branch.
func (r *Registry) detachedHead() error {
	for _, op := range []struct{ file, what, fix string }{
		{"rebase-merge", "a git rebase is in progress", "finish it with `git rebase --continue` (or cancel it with `git rebase --abort`)"},
		{"rebase-apply", "a git rebase or `git am` is in progress", "finish it with `git rebase --continue` or `git am --continue` (or cancel it with --abort)"},
		{"BISECT_LOG", "a git bisect is in progress", "end it with `git bisect reset`"},
	} {
		if _, err := os.Stat(filepath.Join(r.gitDir, op.file)); err == nil {
			return fmt.Errorf("%w: %s in %s, so HEAD is on no branch and megagit has nowhere to commit; %s, then run the command again", errkind.ErrInvalid, op.what, r.gitRoot, op.fix)
		}
	}
	return fmt.Errorf("%w: HEAD is detached (on no branch), so megagit has nowhere to commit; check out the registry's branch (`git switch BRANCH`), then run the command again", errkind.ErrInvalid)
}
