package registry

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/registry/gitstore"
)

// maxHistoryWalk bounds how many commits the history check reads.
const maxHistoryWalk = 200_000

// BadCommits are the commits of the registry's branch that `git fsck
// --strict` rejects for their content: a NUL byte in the commit object
// (nulInCommit), which megagit wrote before it cleaned reasons taken from
// transcripts. Newest first; Walked says how many commits were read.
type BadCommits struct {
	Branch gitstore.RefName
	Hashes []gitstore.Hash
	Walked int
}

// HistoryProblems walks the branch's history for commits git rejects.
func (r *Registry) HistoryProblems() (BadCommits, error) {
	branch, head, err := r.Head()
	out := BadCommits{Branch: branch}
	if err != nil || head.IsZero() {
		return out, err
	}
	err = r.git.Log(head, false, func(c *gitstore.Commit) error {
		if out.Walked >= maxHistoryWalk {
			return gitstore.ErrStop
		}
		out.Walked++
		bad, err := r.hasNUL(c.Hash)
		if err != nil {
			return err
		}
		if bad {
			out.Hashes = append(out.Hashes, c.Hash)
		}
		return nil
	})
	return out, err
}

// hasNUL reports whether the stored commit object holds a NUL byte.
func (r *Registry) hasNUL(h gitstore.Hash) (bool, error) {
	data, err := r.git.RawCommit(h)
	if err != nil {
		return false, fmt.Errorf("read commit %s: %w", h, err)
	}
	return bytes.IndexByte(data, 0) >= 0, nil
}

// historyCheck is doctor's view of HistoryProblems.
func (r *Registry) historyCheck() doctor.Check {
	const name = "history"
	bad, err := r.HistoryProblems()
	switch {
	case err != nil:
		return doctor.Check{Name: name, Status: doctor.Warn, Detail: "could not read the history: " + err.Error()}
	case len(bad.Hashes) == 0:
		return doctor.Check{Name: name, Status: doctor.OK, Detail: fmt.Sprintf("%d commit(s) read: none that git fsck --strict rejects", bad.Walked)}
	}
	return doctor.Check{Name: name, Status: doctor.Fail,
		Detail: fmt.Sprintf("%d commit(s) on %s hold a NUL byte in their message (git fsck --strict: nulInCommit): %s; "+
			"pushing them to a remote that checks objects (receive.fsckObjects) fails", len(bad.Hashes), bad.Branch.Short(), shortHashes(bad.Hashes, 5)),
		Hint: "only rewriting the branch's history removes them: `megagit doctor --fix` prints the steps"}
}

func shortHashes(hs []gitstore.Hash, n int) string {
	var parts []string
	for i, h := range hs {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(hs)-n))
			break
		}
		parts = append(parts, h.String()[:12])
	}
	return strings.Join(parts, ", ")
}

// RepairSteps says how to remove bad commits: a commit's hash is its
// content, so none can be edited in place; the branch is rewritten from the
// oldest on (every later commit gets a new hash), by hand, with git.
func (b BadCommits) RepairSteps() []string {
	br := b.Branch.Short()
	return []string{
		fmt.Sprintf("%d commit(s) on %s hold a NUL byte in their message; megagit cannot repair them: a commit's hash is its content, so the only fix is to rewrite %s from the oldest of them on (every later commit gets a new hash)", len(b.Hashes), br, br),
		"until then `git fsck --strict` fails and every push to a remote with receive.fsckObjects is refused",
		"if the registry is shared: have everyone run `megagit sync` first, so every verdict is on the remote",
		"then, in the registry, with no megagit running and a clean working tree:",
		fmt.Sprintf("  git branch megagit-before-rewrite %s", br),
		fmt.Sprintf("  FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f --msg-filter 'tr -d \"\\000\"' -- %s", br),
		fmt.Sprintf("  git update-ref -d refs/original/refs/heads/%s", br),
		"  megagit doctor   (check, then drop the copy: git branch -D megagit-before-rewrite)",
		"  git reflog expire --expire=now --all && git gc --prune=now",
		fmt.Sprintf("  git push --force-with-lease origin %s   (if shared)", br),
		fmt.Sprintf("every teammate then replaces their copy before their next sync: git fetch origin && git reset --hard origin/%s", br),
	}
}
