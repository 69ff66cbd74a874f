package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// .megagit/local/ is each machine's own state (the decision log, sessions,
// the compiled index, this machine's config, the journal): gitignored, and
// never shared. Plain git can still be made to track a file there (git add
// -f, a teammate's commit): megagit never commits one itself (writeCommit),
// sync refuses one from a remote (regsync), doctor reports what git tracks
// there and `doctor --fix` stops tracking it, keeping the files.

// IsLocalPath reports whether rel, registry-relative and slash-separated,
// is .megagit/local itself (a teammate's symlink or file in its place) or
// lies under it, spelt in any way some file system takes for it
// (local.IsLocalPath: .megagit/LOCAL, .MEGAGIT/local).
func IsLocalPath(rel string) bool { return local.IsLocalPath(rel) }

// TrackedLocal lists the files under .megagit/local/ that the registry
// branch's head commit holds, registry-relative and sorted: in any
// spelling IsLocalPath allows, and .megagit/local itself when git tracks
// a symlink, file or submodule in its place.
func (r *Registry) TrackedLocal() ([]string, error) {
	_, head, err := r.Head()
	if err != nil || head.IsZero() {
		return nil, err
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		return nil, err
	}
	return r.localEntries(tree)
}

// ProjectTrackedLocal lists, in the ref layout, the files under
// .megagit/local/ that the project's checked-out commit or git's index
// holds (a teammate's commit on the project's branch, brought in by git
// pull, puts one in this machine's folder too), registry-relative and
// sorted; nil in the branch layout, where that commit is the registry
// branch's (TrackedLocal). megagit never commits to the project's branch,
// so only git can stop tracking them.
func (r *Registry) ProjectTrackedLocal() ([]string, error) {
	if r.ref == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	if _, head, err := r.checkedOut(); err == nil && !head.IsZero() {
		tree, err := r.CommitTree(head)
		if err != nil {
			return nil, err
		}
		paths, err := r.localEntries(tree)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			seen[p] = true
		}
	}
	names, err := r.git.IndexPaths()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if rel := r.RelPath(name); IsLocalPath(rel) {
			seen[rel] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// localEntries lists the entries of tree (a commit's root tree) that are
// .megagit/local or lie under it (IsLocalPath), registry-relative, sorted.
func (r *Registry) localEntries(tree *gitstore.Tree) ([]string, error) {
	if tree != nil && r.prefix != "" {
		sub, err := tree.Sub(r.prefix)
		if err != nil {
			return nil, err
		}
		tree = sub
	}
	if tree == nil {
		return nil, nil
	}
	var out []string
	for _, meta := range tree.Entries() {
		if meta.Mode != gitstore.Dir || !local.SameName(meta.Name, local.MetaDir) {
			continue
		}
		mt, err := r.git.Tree(meta.Hash)
		if err != nil {
			return nil, err
		}
		for _, e := range mt.Entries() {
			if !local.SameName(e.Name, "local") {
				continue
			}
			dir := meta.Name + "/" + e.Name
			if e.Mode != gitstore.Dir {
				out = append(out, dir)
				continue
			}
			sub, err := r.git.Tree(e.Hash)
			if err != nil {
				return nil, err
			}
			err = sub.Walk(func(name string, f gitstore.Entry) error {
				if f.Mode != gitstore.Dir {
					out = append(out, dir+"/"+name)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// TracksLocal reports whether git tracks rel, a registry-relative file
// under .megagit/local/ (the machine's config), in any spelling a file
// system takes for it: on the registry branch (TrackedLocal), and in the
// ref layout on the project's branch or in its index (ProjectTrackedLocal).
// Then it is a teammate's, not this machine's. false when it cannot be
// read.
func (r *Registry) TracksLocal(rel string) bool {
	paths, err := r.TrackedLocal()
	if err != nil {
		return false
	}
	project, err := r.ProjectTrackedLocal()
	if err != nil {
		return false
	}
	for _, p := range append(paths, project...) {
		if samePath(p, rel) {
			return true
		}
	}
	return false
}

// samePath says whether the slash paths a and b name the same file,
// component by component (local.SameName).
func samePath(a, b string) bool {
	pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if !local.SameName(pa[i], pb[i]) && !local.SameName(pb[i], pa[i]) {
			return false
		}
	}
	return true
}

// UntrackLocal removes every file under .megagit/local/ from the registry
// branch in one commit (and from git's index), leaving the files on disk:
// they are this machine's state. It returns what it removed, nothing and
// a zero hash when git tracks nothing there.
func (r *Registry) UntrackLocal() ([]string, gitstore.Hash, error) {
	var removed []string
	h, err := r.Write(func() (string, []Change, error) {
		paths, err := r.TrackedLocal()
		if err != nil || len(paths) == 0 {
			return "", nil, err
		}
		removed = paths
		changes := make([]Change, len(paths))
		for i, p := range paths {
			changes[i] = Change{Path: p, Delete: true, TreeOnly: true}
		}
		return fmt.Sprintf("megagit: stop tracking %s\n\n%s holds this machine's own state, which megagit never shares.\n\nMegagit-Action: untrack-local\n", local.MachineDir+"/", local.MachineDir+"/"), changes, nil
	})
	return removed, h, err
}

// localStateCheck fails when git tracks files under .megagit/local/: on
// the registry branch (doctor --fix stops tracking them) or, in the ref
// layout, on the project's branch or in its index (git does).
func (r *Registry) localStateCheck() doctor.Check {
	const name = "local state"
	paths, err := r.TrackedLocal()
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	project, err := r.ProjectTrackedLocal()
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error()}
	}
	switch {
	case len(paths) > 0:
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("git tracks %s: %s/ is this machine's own state and must never be shared", strings.Join(paths, ", "), local.MachineDir),
			Hint:   "`megagit doctor --fix` stops tracking them in one commit, keeping the files"}
	case len(project) > 0:
		git := make([]string, len(project))
		for i, p := range project {
			git[i] = r.GitPath(p)
		}
		return doctor.Check{Name: name, Status: doctor.Fail,
			Detail: fmt.Sprintf("your project's branch or git's index tracks %s: %s/ is this machine's own state and must never be shared; megagit does not read it", strings.Join(project, ", "), local.MachineDir),
			Hint:   fmt.Sprintf("stop tracking them on your branch (megagit never commits to it): `git rm --cached %s`, then commit", strings.Join(git, " "))}
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: "git tracks nothing under " + local.MachineDir + "/"}
}

// refuseLocalChanges is writeCommit's guard: no commit megagit writes adds
// or changes a file under .megagit/local/ (UntrackLocal's removals aside).
func refuseLocalChanges(changes []Change) error {
	for _, c := range changes {
		if IsLocalPath(c.Path) && !(c.Delete && c.TreeOnly) {
			return fmt.Errorf("%w: %s is under %s/, this machine's own state, which megagit never commits", errkind.ErrInvalid, c.Path, local.MachineDir)
		}
	}
	return nil
}
