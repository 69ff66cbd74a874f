package registry

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// Layout says where a registry keeps its history.
type Layout string

// The two layouts, and the choice Init makes when it is not told.
const (
	// LayoutAuto lets Init choose: the ref layout in a repository that
	// already has commits (a project), the branch layout otherwise.
	LayoutAuto Layout = ""
	// LayoutBranch: the registry is the repository; its commits go on the
	// checked-out branch, like any commit.
	LayoutBranch Layout = "branch"
	// LayoutRef: the registry lives inside a project's repository; its
	// commits go on a branch of its own (RefBranch), never on the
	// checked-out one, and its files stay in .megagit/, which the
	// project's git ignores.
	LayoutRef Layout = "ref"
)

// ParseLayout reads a layout name: auto, branch or ref.
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "", "auto":
		return LayoutAuto, nil
	case string(LayoutBranch), string(LayoutRef):
		return Layout(s), nil
	}
	return "", fmt.Errorf("%w: layout %q: want auto, branch or ref", errkind.ErrInvalid, s)
}

// RefBranch is the branch a registry in the ref layout commits to. A
// branch, not a private ref namespace: git's default refspecs fetch and
// push it, so a teammate gets it with a plain clone or fetch, and
// `git log megagit` shows the history.
const RefBranch = gitstore.RefName("refs/heads/megagit")

// Layout files, registry-relative.
const (
	// RefFile marks the ref layout: it names the branch the registry
	// commits to. It is not committed (it says how this checkout is laid
	// out, not what the registry holds).
	RefFile = local.RefFile
	// refIgnoreFile keeps .megagit/ out of the project's commits; it
	// ignores itself and RefFile too. It is not committed.
	refIgnoreFile = local.MetaDir + "/.gitignore"
	// RefSkillsRoot is the skill folder of a registry in the ref layout:
	// inside .megagit/, so no file a verdict edits is the project's.
	RefSkillsRoot = local.MetaDir + "/skills"
)

const refIgnoreData = "# megagit keeps this folder on its own branch (named in .megagit/ref), out of the project's commits\n*\n"

// onDisk reports whether a registry-relative path has a working copy: every
// path in the branch layout; only those inside .megagit/ in the ref
// layout, whose branch also holds the top-level .gitignore and
// .gitattributes of a registry (so a worktree of it is a registry of its
// own), files the project's own must not be replaced by.
func (r *Registry) onDisk(rel string) bool {
	return r.ref == "" || strings.HasPrefix(rel, local.MetaDir+"/") && !local.IsLocalPath(rel)
}

// treeOnly are the files a registry branch holds outside .megagit/: they
// are never written to the project's work tree.
var treeOnly = map[string]bool{".gitignore": true, ".gitattributes": true}

// readRefFile returns the branch RefFile names under root, or "" when there
// is none (the branch layout).
func readRefFile(root string) (gitstore.RefName, error) {
	data, err := os.ReadFile(path.Join(root, RefFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := gitstore.RefName(strings.TrimSpace(string(data)))
	if !name.IsBranch() || name.Validate() != nil {
		return "", fmt.Errorf("%w: %s: %q is not a branch (want refs/heads/NAME)", errkind.ErrInvalid, path.Join(root, RefFile), strings.TrimSpace(string(data)))
	}
	return name, nil
}

// Layout is where this registry keeps its history.
func (r *Registry) Layout() Layout {
	if r.ref != "" {
		return LayoutRef
	}
	return LayoutBranch
}

// ChooseLayout is the layout Init picks for dir when not told: the ref
// layout inside a repository whose checked-out branch has commits (a
// project: megagit must not add commits to the developer's branch), the
// branch layout for a new folder or an empty repository.
// WorkTreeTop is the top folder of the git work tree holding dir, if
// dir is inside one (ok false: it is not, or it is a bare repository).
func WorkTreeTop(dir string) (top string, ok bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	// The nearest existing folder: init may name one not made yet.
	for {
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			break
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", false
		}
		abs = parent
	}
	st, err := gitstore.Open(abs, "")
	if err != nil {
		return "", false
	}
	return st.WorkTree(), true
}

func ChooseLayout(dir string) (Layout, error) {
	st, err := gitstore.Open(dir, "")
	if errors.Is(err, gitstore.ErrNoRepository) {
		return LayoutBranch, nil
	}
	if err != nil {
		return "", fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	if _, err := st.HeadCommit(); err == nil {
		return LayoutRef, nil
	}
	return LayoutBranch, nil
}

// checkoutRegistryBranch prepares the registry branch of a new ref-layout
// registry: a local branch a teammate's fetch brought as a remote-tracking
// one is created from it, and an existing branch's files are written to
// disk. It returns the branch's commit (zero when there is none yet).
// Only files inside .megagit/ are written: a branch holding anything else
// is not a registry branch, and is refused.
func (r *Registry) checkoutRegistryBranch() (gitstore.Hash, error) {
	_, head, err := r.Head()
	if err != nil {
		return gitstore.ZeroHash, err
	}
	if head.IsZero() {
		if head, err = r.remoteRegistryBranch(); err != nil || head.IsZero() {
			return gitstore.ZeroHash, err
		}
		if err := r.setRef(r.ref, gitstore.ZeroHash, head); err != nil {
			return gitstore.ZeroHash, err
		}
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	var changes []Change
	err = tree.Files(func(f gitstore.File) error {
		rel := r.RelPath(f.Path)
		if treeOnly[rel] {
			return nil
		}
		if !r.onDisk(rel) {
			return fmt.Errorf("%w: branch %s holds %s, outside %s/: it is not a megagit registry branch", errkind.ErrInvalid, r.ref.Short(), f.Path, local.MetaDir)
		}
		data, err := f.Data()
		if err != nil {
			return err
		}
		changes = append(changes, Change{Path: rel, Data: data, Mode: f.Mode})
		return nil
	})
	if err != nil {
		return gitstore.ZeroHash, err
	}
	for _, c := range changes {
		if err := local.WriteFileAtomic(r.abs(c.Path), c.Data, 0o644); err != nil {
			return gitstore.ZeroHash, err
		}
	}
	return head, nil
}

// BranchNotCheckedOut names the registry branch of the repository around
// dir when dir's work tree has no registry: "megagit", or "origin/megagit"
// when only a remote's is there (a fresh clone, before `megagit init`).
// It is what a linked worktree of a ref-layout project lacks: .megagit/ is
// ignored by the project, so `git worktree add` never writes it. "" when
// the repository has no such branch.
func BranchNotCheckedOut(dir string) string {
	st, err := gitstore.Open(dir, "")
	if err != nil {
		return ""
	}
	holds := func(h gitstore.Hash) bool {
		tree, err := st.CommitTree(h)
		if err != nil || tree == nil {
			return false
		}
		_, ok, err := tree.Read(local.ConfigPath)
		return ok && err == nil
	}
	if h, err := st.Ref(RefBranch); err == nil && holds(h) {
		return RefBranch.Short()
	}
	refs, err := st.RemoteRefs()
	if err != nil {
		return ""
	}
	found := ""
	for _, ref := range refs {
		if strings.HasSuffix(ref.Name.Short(), "/"+RefBranch.Short()) && holds(ref.Hash) {
			if found == "" || strings.HasPrefix(ref.Name.Short(), "origin/") {
				found = ref.Name.Short()
			}
		}
	}
	return found
}

// remoteRegistryBranch is the registry branch as a remote has it (origin
// first, else the first remote that has one), or zero.
func (r *Registry) remoteRegistryBranch() (gitstore.Hash, error) {
	remotes, err := r.git.Remotes()
	if err != nil {
		return gitstore.ZeroHash, err
	}
	names := []string{"origin"}
	for _, n := range remotes {
		if n != "origin" {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if h, err := r.git.Ref(gitstore.RemoteRef(n, r.ref.Short())); err == nil {
			return h, nil
		}
	}
	return gitstore.ZeroHash, nil
}
