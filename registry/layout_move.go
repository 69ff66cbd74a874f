package registry

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// LayoutMove is what a change of layout did.
type LayoutMove struct {
	Layout Layout `json:"layout"`
	Branch string `json:"branch"` // where the registry's commits go now
	Commit string `json:"commit"` // "" when only shown
	// Skills maps each moved skill folder (registry-relative) to its new
	// place; empty when the folders stayed.
	Skills map[string]string `json:"skills"`
	// Untrack lists what the project's branch still tracks of the
	// registry (moving to the ref layout): the user removes them from the
	// project with git, megagit never commits to that branch.
	Untrack []string `json:"untrack"`
}

// MoveToRef moves a branch-layout registry inside a project onto its own
// branch (RefBranch): one commit with no parent holds the registry as
// last committed (.megagit/ with config as the new config.yaml, and every
// skill folder of the roots moved to RefSkillsRoot, plus the registry's
// .gitignore and .gitattributes); the moved files are written into
// .megagit/, and RefFile and the ignore rule make it the ref layout. The
// checked-out branch, its index and its files are not touched: what it
// still tracks of the registry is listed in Untrack. The registry's files
// must be committed as they are (ErrDirty otherwise). config is the new
// config.yaml (its roots: RefSkillsRoot).
func (r *Registry) MoveToRef(config []byte) (LayoutMove, error) {
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return LayoutMove{}, err
	}
	defer lock.Release()
	if _, err := r.RecoverLocked(); err != nil {
		return LayoutMove{}, err
	}
	if r.ref != "" {
		if _, h, err := r.Head(); err != nil || !h.IsZero() {
			return LayoutMove{}, fmt.Errorf("%w: the registry is already on its own branch %s", errkind.ErrInvalid, r.ref.Short())
		}
	}
	if _, err := r.git.Ref(RefBranch); err == nil {
		return LayoutMove{}, fmt.Errorf("%w: branch %s exists already; rename or delete it first (git branch -m %s OLD-NAME)", ErrExists, RefBranch.Short(), RefBranch.Short())
	}
	head, err := r.git.HeadCommit()
	if err != nil {
		return LayoutMove{}, fmt.Errorf("%w: the checked-out branch has no commit to move the registry from", errkind.ErrInvalid)
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		return LayoutMove{}, err
	}
	changes, sources, moved, err := r.refChanges(tree, config)
	if err != nil {
		return LayoutMove{}, err
	}
	if err := r.checkClean(tree, sources); err != nil {
		return LayoutMove{}, err
	}
	commit, err := r.writeCommit(nil, changes, "megagit: keep the registry on its own branch\n\nMegagit-Action: layout\n", "commit")
	if err != nil {
		return LayoutMove{}, err
	}
	// The journal first, naming the layout: a process killed before it
	// changed nothing (the commit is an unreferenced object); killed after
	// it, anywhere, the next command (or doctor --fix) replays it, which
	// writes the layout files and finishes the commit (recover.go).
	j, err := r.writeJournal(RefBranch, gitstore.ZeroHash, commit, changes, LayoutRef)
	if err != nil {
		return LayoutMove{}, err
	}
	if err := r.enterRefLayout(RefBranch); err != nil {
		return LayoutMove{}, err
	}
	if err := r.finish(j); err != nil {
		return LayoutMove{}, err
	}
	untrack := []string{local.MetaDir}
	for src := range moved {
		untrack = append(untrack, src)
	}
	sort.Strings(untrack[1:])
	return LayoutMove{Layout: LayoutRef, Branch: RefBranch.Short(), Commit: commit.String(), Skills: moved, Untrack: untrack}, nil
}

// refChanges lists the files of the ref layout's first commit, the
// registry-relative files of tree they come from, and where each skill
// folder moves.
func (r *Registry) refChanges(tree *gitstore.Tree, config []byte) ([]Change, []string, map[string]string, error) {
	var changes []Change
	var sources []string
	moved := map[string]string{}
	from := map[string]string{} // new path -> source
	add := func(src, dst string, data []byte, mode gitstore.Mode) error {
		if other, ok := from[dst]; ok {
			return fmt.Errorf("%w: %s and %s would both move to %s; rename one skill first (megagit skill mv)", ErrExists, other, src, dst)
		}
		from[dst] = src
		sources = append(sources, src)
		changes = append(changes, Change{Path: dst, Data: data, Mode: mode})
		return nil
	}
	err := tree.Files(func(f gitstore.File) error {
		rel := r.RelPath(f.Path)
		dst := ""
		switch {
		case strings.HasPrefix(rel, "../") || local.IsLocalPath(rel):
			return nil
		case rel == local.ConfigPath:
			sources = append(sources, rel)
			return nil // replaced by config
		case strings.HasPrefix(rel, local.MetaDir+"/"):
			dst = rel
		default:
			for _, root := range r.opts.Roots {
				root = path.Clean(root)
				if rest, ok := strings.CutPrefix(rel, root+"/"); ok && strings.Contains(rest, "/") {
					dst = RefSkillsRoot + "/" + rest
					skill := rest[:strings.Index(rest, "/")]
					moved[root+"/"+skill] = RefSkillsRoot + "/" + skill
					break
				}
			}
		}
		if dst == "" {
			return nil // the project's
		}
		if !f.Mode.IsFile() {
			return fmt.Errorf("%w: %s is not a regular file; the registry branch holds files only", errkind.ErrInvalid, rel)
		}
		data, err := f.Data()
		if err != nil {
			return err
		}
		return add(rel, dst, data, f.Mode)
	})
	if err != nil {
		return nil, nil, nil, err
	}
	changes = append(changes,
		Change{Path: local.ConfigPath, Data: config},
		Change{Path: ".gitattributes", Data: []byte(ledgerUnionRule + "\n" + nativeUnionRule + "\n")},
		Change{Path: ".gitignore", Data: []byte(localIgnoreRule + "\n")})
	for src, dst := range moved {
		if src == dst {
			delete(moved, src)
		}
	}
	sort.Strings(sources)
	return changes, sources, moved, nil
}

// MoveToBranch moves a ref-layout registry onto the checked-out branch
// (the branch layout): one merge commit on it, with parents the branch
// and the registry's branch (so `megagit log` keeps every verdict), adds
// the registry's files (its .gitignore and .gitattributes rules join the
// project's); .megagit/ref and .megagit/.gitignore go. The registry's
// branch is left as it is (delete it with git branch -D).
func (r *Registry) MoveToBranch() (LayoutMove, error) {
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return LayoutMove{}, err
	}
	defer lock.Release()
	if _, err := r.RecoverLocked(); err != nil {
		return LayoutMove{}, err
	}
	if r.ref == "" {
		return LayoutMove{}, fmt.Errorf("%w: the registry already commits to the checked-out branch", errkind.ErrInvalid)
	}
	_, regHead, err := r.Head()
	if err != nil {
		return LayoutMove{}, err
	}
	regTree, err := r.CommitTree(regHead)
	if err != nil {
		return LayoutMove{}, err
	}
	branch, head, err := r.checkedOut()
	if err != nil {
		return LayoutMove{}, err
	}
	headTree, err := r.CommitTree(head)
	if err != nil {
		return LayoutMove{}, err
	}
	changes, err := r.branchChanges(regTree, headTree)
	if err != nil {
		return LayoutMove{}, err
	}
	parents := []gitstore.Hash{}
	if !head.IsZero() {
		parents = append(parents, head)
	}
	if !regHead.IsZero() {
		parents = append(parents, regHead)
	}
	commit, err := r.writeCommit(headTree, changes, fmt.Sprintf("megagit: keep the registry on %s\n\nMegagit-Action: layout\n", branch.Short()), "commit", parents...)
	if err != nil {
		return LayoutMove{}, err
	}
	// Journal, naming the layout, then leave the ref layout, then apply:
	// killed anywhere after the journal, the next command (or doctor
	// --fix) replays it, which leaves the ref layout if it has not yet and
	// finishes the commit (recover.go).
	j, err := r.writeJournal(branch, head, commit, changes, LayoutBranch)
	if err != nil {
		return LayoutMove{}, err
	}
	if err := r.leaveRefLayout(); err != nil {
		return LayoutMove{}, err
	}
	if err := r.finish(j); err != nil {
		return LayoutMove{}, err
	}
	return LayoutMove{Layout: LayoutBranch, Branch: branch.Short(), Commit: commit.String()}, nil
}

// branchChanges lists the files the move to the branch layout adds to the
// checked-out branch: every file of the registry's branch, whose
// .gitignore and .gitattributes lines are added to the project's. A
// registry file the branch already holds, or a project .gitignore or
// .gitattributes with uncommitted edits, is refused.
func (r *Registry) branchChanges(regTree, headTree *gitstore.Tree) ([]Change, error) {
	var changes []Change
	var clash []string
	if regTree == nil {
		return nil, nil
	}
	err := regTree.Files(func(f gitstore.File) error {
		rel := r.RelPath(f.Path)
		data, err := f.Data()
		if err != nil {
			return err
		}
		old, inHead, err := r.blobAt(headTree, rel)
		if err != nil {
			return err
		}
		if !treeOnly[rel] {
			if inHead {
				clash = append(clash, rel)
			}
			changes = append(changes, Change{Path: rel, Data: data, Mode: f.Mode})
			return nil
		}
		merged := withLines(string(old), strings.Split(strings.TrimSpace(string(data)), "\n")...)
		if merged == string(old) {
			return nil
		}
		if err := r.checkClean(headTree, []string{rel}); err != nil {
			return err
		}
		changes = append(changes, Change{Path: rel, Data: []byte(merged)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(clash) > 0 {
		sort.Strings(clash)
		return nil, fmt.Errorf("%w: the checked-out branch already has %s; remove them from it first", ErrExists, strings.Join(clash, ", "))
	}
	return changes, nil
}

// enterRefLayout writes the files that make this checkout the ref layout,
// committing to branch: the ignore rule first, so the registry is never in
// the ref layout without it, then RefFile. Writing them again is harmless.
func (r *Registry) enterRefLayout(branch gitstore.RefName) error {
	if !r.ignoresMetaDir() {
		if err := local.WriteFileAtomic(r.abs(refIgnoreFile), []byte(refIgnoreData), 0o644); err != nil {
			return err
		}
	}
	if err := local.WriteFileAtomic(r.abs(RefFile), []byte(branch.String()+"\n"), 0o644); err != nil {
		return err
	}
	r.ref = branch
	return nil
}

// leaveRefLayout removes the ref layout's files: RefFile first (the
// registry is then in the branch layout), then the ignore rule and the
// note of what .megagit/ reflects. Removing them again is harmless.
func (r *Registry) leaveRefLayout() error {
	for _, p := range []string{r.abs(RefFile), r.abs(refIgnoreFile), r.checkoutPath()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	r.ref = ""
	return nil
}
