package registry

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/megagit/megagit/local"
)

// .megagit/local/ is each machine's own state (the decision log, sessions,
// the compiled index, this machine's config, the journal): gitignored, and
// never shared. Plain git can still be made to track a file there (git add
// -f, a teammate's commit): megagit never commits one itself (writeCommit),
// sync refuses one from a remote (regsync), doctor reports what git tracks
// there and `doctor --fix` stops tracking it, keeping the files.

// IsLocalPath reports whether rel, registry-relative and slash-separated,
// lies under .megagit/local/.
func IsLocalPath(rel string) bool { return strings.HasPrefix(rel, local.LocalDirName+"/") }

// TrackedLocal lists the files under .megagit/local/ that the registry
// branch's head commit holds, registry-relative and sorted.
func (r *Registry) TrackedLocal() ([]string, error) {
	_, head, err := r.Head()
	if err != nil || head.IsZero() {
		return nil, err
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		return nil, err
	}
	sub, err := tree.Tree(r.GitPath(local.LocalDirName))
	if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	w := object.NewTreeWalker(sub, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if e.Mode != filemode.Dir {
			out = append(out, local.LocalDirName+"/"+name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Tracks reports whether the registry branch's head commit holds rel, a
// registry-relative file (false when it cannot be read).
func (r *Registry) Tracks(rel string) bool {
	_, head, err := r.Head()
	if err != nil || head.IsZero() {
		return false
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		return false
	}
	_, ok, err := r.blobAt(tree, rel)
	return ok && err == nil
}

// UntrackLocal removes every file under .megagit/local/ from the registry
// branch in one commit (and from git's index), leaving the files on disk:
// they are this machine's state. It returns what it removed, nothing and
// a zero hash when git tracks nothing there.
func (r *Registry) UntrackLocal() ([]string, plumbing.Hash, error) {
	var removed []string
	h, err := r.writeLockedRaw(func() (string, []Change, error) {
		paths, err := r.TrackedLocal()
		if err != nil || len(paths) == 0 {
			return "", nil, err
		}
		removed = paths
		changes := make([]Change, len(paths))
		for i, p := range paths {
			changes[i] = Change{Path: p, Delete: true, TreeOnly: true}
		}
		return fmt.Sprintf("megagit: stop tracking %s\n\n%s holds this machine's own state, which megagit never shares.\n\nMegagit-Action: untrack-local\n", local.LocalDirName+"/", local.LocalDirName+"/"), changes, nil
	})
	return removed, h, err
}

// localStateCheck fails when git tracks files under .megagit/local/.
func (r *Registry) localStateCheck() Check {
	const name = "local state"
	paths, err := r.TrackedLocal()
	switch {
	case err != nil:
		return Check{Name: name, Status: CheckFail, Detail: err.Error()}
	case len(paths) > 0:
		return Check{Name: name, Status: CheckFail,
			Detail: fmt.Sprintf("git tracks %s: %s/ is this machine's own state and must never be shared", strings.Join(paths, ", "), local.LocalDirName),
			Hint:   "`megagit doctor --fix` stops tracking them in one commit, keeping the files"}
	}
	return Check{Name: name, Status: CheckOK, Detail: "git tracks nothing under " + local.LocalDirName + "/"}
}

// refuseLocalChanges is writeCommit's guard: no commit megagit writes adds
// or changes a file under .megagit/local/ (UntrackLocal's removals aside).
func refuseLocalChanges(changes []Change) error {
	for _, c := range changes {
		if IsLocalPath(c.Path) && !(c.Delete && c.TreeOnly) {
			return fmt.Errorf("%w: %s is under %s/, this machine's own state, which megagit never commits", local.ErrInvalid, c.Path, local.LocalDirName)
		}
	}
	return nil
}
