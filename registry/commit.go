package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/safetext"
)

// Change is one file megagit writes (or deletes) in a commit, as the
// journal records it; a sync's merge plan is a list of them. Path is
// registry-relative, slash-separated.
type Change struct {
	Path   string `json:"path"`
	Data   []byte `json:"data,omitempty"`
	Delete bool   `json:"delete,omitempty"`
	// Mode is the file's git mode: gitstore.Executable for a script that
	// runs, gitstore.Regular otherwise; zero keeps the mode the file has
	// in the tree the commit edits (Regular for a new file). The commit
	// fills it in before the journal records it.
	Mode gitstore.Mode `json:"mode,omitempty"`
	// TreeOnly changes the commit's tree (and git's index) only, never
	// the file on disk: `doctor --fix` stops tracking a file of
	// .megagit/local/ and keeps it.
	TreeOnly bool `json:"tree_only,omitempty"`
}

// journal is the redo log of one commit in flight; see recover.go.
type journal struct {
	Branch  string   `json:"branch"`
	Parent  string   `json:"parent"` // "" when the branch was unborn
	Commit  string   `json:"commit"`
	Changes []Change `json:"changes"`
	// Layout names the layout a `megagit layout` move leaves the registry
	// in, when this commit is one: replaying the journal then also
	// finishes the change of layout (recover.go).
	Layout Layout `json:"layout,omitempty"`
}

func (r *Registry) journalPath() string { return filepath.Join(r.LocalDir(), local.JournalFile) }

// Head resolves the registry's branch and its commit (zero hash if
// unborn): the checked-out branch in the branch layout, the registry's
// own branch in the ref layout (whatever the project has checked out).
// Every write and a sync move that branch; log, revert and doctor read it.
func (r *Registry) Head() (gitstore.RefName, gitstore.Hash, error) {
	if r.ref != "" {
		return r.branchHead(r.ref)
	}
	return r.checkedOut()
}

// checkedOut resolves the checked-out branch and its commit, in either
// layout.
func (r *Registry) checkedOut() (gitstore.RefName, gitstore.Hash, error) {
	target, ok, err := r.git.SymRef(gitstore.HEAD)
	if err != nil {
		return "", gitstore.ZeroHash, fmt.Errorf("read HEAD: %w", err)
	}
	if !ok {
		return "", gitstore.ZeroHash, r.detachedHead()
	}
	return r.branchHead(target)
}

// branchHead resolves branch to its commit (zero when unborn).
func (r *Registry) branchHead(branch gitstore.RefName) (gitstore.RefName, gitstore.Hash, error) {
	h, err := r.git.Ref(branch)
	if errors.Is(err, gitstore.ErrNoRef) {
		return branch, gitstore.ZeroHash, nil
	}
	if err != nil {
		return "", gitstore.ZeroHash, fmt.Errorf("read %s: %w", branch, err)
	}
	return branch, h, nil
}

// CommitTree returns the tree of the given commit, or nil for the zero
// hash, so a merge can read a side that does not exist yet as empty.
func (r *Registry) CommitTree(h gitstore.Hash) (*gitstore.Tree, error) {
	return r.git.CommitTree(h)
}

// blobAt returns the content of a registry-relative path in tree, and
// whether it exists there.
func (r *Registry) blobAt(tree *gitstore.Tree, rel string) ([]byte, bool, error) {
	return tree.Read(r.GitPath(rel))
}

// checkClean refuses to overwrite a file whose working copy differs from
// HEAD: those are the user's own edits and megagit must not commit them.
// The error says what to do with each kind: edits of tracked files (commit
// or stash), untracked files (commit or move), files git ignores (move or
// delete: git stash would not take them).
func (r *Registry) checkClean(tree *gitstore.Tree, paths []string) error {
	var dirty, untracked, ignored []string
	for _, p := range paths {
		if !r.onDisk(p) {
			continue
		}
		committed, inHead, err := r.blobAt(tree, p)
		if err != nil {
			return err
		}
		if fi, err := os.Lstat(r.abs(p)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is a symlink; megagit writes its files in place and never through a link: replace the link with a copy of the file it points to (and commit that), then run the command again", errkind.ErrInvalid, p)
		}
		onDisk, err := os.ReadFile(r.abs(p))
		exists := err == nil
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		switch {
		case exists && !inHead && r.gitIgnores(p):
			ignored = append(ignored, p)
		case exists && !inHead:
			untracked = append(untracked, p)
		case exists != inHead || !bytes.Equal(committed, onDisk):
			dirty = append(dirty, p)
		}
	}
	// git stash sets aside edits of tracked files only: files git ignores
	// or does not track yet need another word.
	if len(ignored) > 0 {
		return fmt.Errorf("%w: git ignores %s, so neither a commit nor git stash takes them; move them out of the skill's folder or delete them, then run the command again", ErrDirty, strings.Join(ignored, ", "))
	}
	if len(untracked) > 0 && r.ref == "" {
		return fmt.Errorf("%w: %s not committed yet, so megagit would have to commit them; commit them (git add, git commit) or move them away, then run the command again", ErrDirty, strings.Join(untracked, ", "))
	}
	dirty = append(dirty, untracked...)
	if len(dirty) > 0 && r.ref != "" {
		return fmt.Errorf("%w in %s: they differ from branch %s, where megagit keeps the registry; commit them there (in a worktree of it: `git worktree add ../megagit-edit %s`) or undo them, then run the command again", ErrDirty, strings.Join(dirty, ", "), r.ref.Short(), r.ref.Short())
	}
	if len(dirty) > 0 {
		return fmt.Errorf("%w in %s: megagit would have to commit them; commit or stash them first (git stash), then run the command again", ErrDirty, strings.Join(dirty, ", "))
	}
	return nil
}

// commitChanges records changes as one commit on the current branch. The
// caller holds the lock. Only the listed paths change; the user's index and
// other files are left as they are.
func (r *Registry) commitChanges(message string, changes []Change) (gitstore.Hash, error) {
	branch, parent, err := r.Head()
	if err != nil {
		return gitstore.ZeroHash, err
	}
	tree, err := r.cleanTree(parent, changes)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	var parents []gitstore.Hash
	if !parent.IsZero() {
		parents = []gitstore.Hash{parent}
	}
	hash, err := r.writeCommit(tree, changes, message, "commit", parents...)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	return hash, r.journalAndFinish(branch, parent, hash, changes)
}

// cleanTree returns the tree of commit h after checking that no file of
// changes holds edits of the user's (checkClean).
func (r *Registry) cleanTree(h gitstore.Hash, changes []Change) (*gitstore.Tree, error) {
	tree, err := r.CommitTree(h)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(changes))
	for _, c := range changes {
		if !c.TreeOnly {
			paths = append(paths, c.Path)
		}
	}
	return tree, r.checkClean(tree, paths)
}

// writeCommit stores a commit of tree with changes applied, authored now
// by the git identity; what names it in a storage error.
func (r *Registry) writeCommit(tree *gitstore.Tree, changes []Change, message, what string, parents ...gitstore.Hash) (gitstore.Hash, error) {
	if err := refuseLocalChanges(changes); err != nil {
		return gitstore.ZeroHash, err
	}
	if err := r.refuseGitPaths(changes); err != nil {
		return gitstore.ZeroHash, err
	}
	sig, err := r.signature(time.Now())
	if err != nil {
		return gitstore.ZeroHash, err
	}
	newTree, err := r.editTree(tree.Hash(), changes)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	// Every message is cleaned again here, whatever built it: a NUL makes
	// `git fsck --strict` (and a remote with receive.fsckObjects) reject
	// the commit, and nothing rewrites a commit once pushed.
	commit := gitstore.Commit{Author: sig, Committer: sig, Message: safetext.Message(message), Tree: newTree, Parents: parents}
	hash, err := r.git.WriteCommit(commit)
	if err != nil {
		return gitstore.ZeroHash, fmt.Errorf("write %s: %w", what, err)
	}
	return hash, nil
}

// refuseGitPaths is writeCommit's other guard: no commit megagit writes
// adds or changes a file with a .git component, in any spelling
// (local.IsDotGit: .GIT, .git., git~1): git refuses to check one out, and
// `git fsck --strict` (and a remote's receive.fsckObjects) reject the
// commit. Removing one is allowed.
func (r *Registry) refuseGitPaths(changes []Change) error {
	for _, c := range changes {
		if !c.Delete && local.HasDotGit(r.GitPath(c.Path)) {
			return fmt.Errorf("%w: %s is inside a .git folder (in some spelling), which git refuses in a commit; megagit never commits one", errkind.ErrInvalid, c.Path)
		}
	}
	return nil
}

// journalAndFinish records the commit about to be applied (the redo log
// recover.go replays), then applies it: work-tree files, index, branch.
func (r *Registry) journalAndFinish(branch gitstore.RefName, parent, commit gitstore.Hash, changes []Change) error {
	j, err := r.writeJournal(branch, parent, commit, changes, "")
	if err != nil {
		return err
	}
	return r.finish(j)
}

// writeJournal records the commit about to be applied.
func (r *Registry) writeJournal(branch gitstore.RefName, parent, commit gitstore.Hash, changes []Change, layout Layout) (journal, error) {
	j := journal{Branch: branch.String(), Commit: commit.String(), Changes: changes, Layout: layout}
	if !parent.IsZero() {
		j.Parent = parent.String()
	}
	data, err := json.Marshal(j)
	if err != nil {
		return j, err
	}
	if err := local.WriteFileAtomic(r.journalPath(), data, 0o600); err != nil {
		return j, fmt.Errorf("write journal: %w", err)
	}
	return j, nil
}

// finish applies a journaled commit: work-tree files (and the folders
// its deletions left empty), index (branch layout), branch, then drops
// the journal. Every step is idempotent so recovery can rerun it: a
// process killed anywhere before the journal is dropped leaves nothing
// the replay does not finish, an emptied skill folder included.
func (r *Registry) finish(j journal) error {
	var deleted []string
	for _, c := range j.Changes {
		if c.TreeOnly || !r.onDisk(c.Path) {
			continue
		}
		if c.Delete {
			if err := os.Remove(r.abs(c.Path)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			deleted = append(deleted, c.Path)
			continue
		}
		perm := os.FileMode(0o644)
		if c.Mode == gitstore.Executable {
			perm = 0o755
		}
		if err := local.WriteFileAtomic(r.abs(c.Path), c.Data, perm); err != nil {
			return fmt.Errorf("write %s: %w", c.Path, err)
		}
	}
	r.pruneEmptyDirs(deleted)
	// The index is the checked-out branch's: in the ref layout the
	// registry's files are not on that branch, so it is left alone.
	if r.ref == "" {
		if err := r.updateIndex(j.Changes); err != nil {
			return fmt.Errorf("update git index: %w", err)
		}
	}
	var old gitstore.Hash
	if j.Parent != "" {
		old = gitstore.NewHash(j.Parent)
	}
	if err := r.setRef(gitstore.RefName(j.Branch), old, gitstore.NewHash(j.Commit)); err != nil {
		return err
	}
	if r.ref != "" {
		if err := r.markCheckout(gitstore.NewHash(j.Commit)); err != nil {
			return err
		}
	}
	if err := os.Remove(r.journalPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// editTree writes the trees for root with changes applied and returns the
// new root tree hash.
func (r *Registry) editTree(root gitstore.Hash, changes []Change) (gitstore.Hash, error) {
	byPath := map[string]*Change{}
	for i := range changes {
		byPath[r.GitPath(changes[i].Path)] = &changes[i]
	}
	return r.editDir(root, "", byPath)
}

func (r *Registry) editDir(h gitstore.Hash, dir string, byPath map[string]*Change) (gitstore.Hash, error) {
	entries := map[string]gitstore.Entry{}
	if !h.IsZero() {
		t, err := r.git.Tree(h)
		if err != nil {
			return gitstore.ZeroHash, fmt.Errorf("read tree %s: %w", dir, err)
		}
		for _, e := range t.Entries() {
			entries[e.Name] = e
		}
	}
	subdirs := map[string]bool{}
	for p, c := range byPath {
		if dir != "" && !strings.HasPrefix(p, dir+"/") {
			continue
		}
		rest := strings.TrimPrefix(p, dir+"/")
		if dir == "" {
			rest = p
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			subdirs[rest[:i]] = true
			continue
		}
		if c.Delete {
			delete(entries, rest)
			continue
		}
		bh, err := r.git.WriteBlob(c.Data)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		if c.Mode != gitstore.Regular && c.Mode != gitstore.Executable {
			c.Mode = gitstore.Regular
			if e, ok := entries[rest]; ok && e.Mode == gitstore.Executable {
				c.Mode = gitstore.Executable
			}
		}
		entries[rest] = gitstore.Entry{Name: rest, Mode: c.Mode, Hash: bh}
	}
	for name := range subdirs {
		var sub gitstore.Hash
		if e, ok := entries[name]; ok && e.Mode == gitstore.Dir {
			sub = e.Hash
		}
		nh, err := r.editDir(sub, path.Join(dir, name), byPath)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		if nh.IsZero() {
			delete(entries, name)
		} else {
			entries[name] = gitstore.Entry{Name: name, Mode: gitstore.Dir, Hash: nh}
		}
	}
	if len(entries) == 0 && dir != "" {
		return gitstore.ZeroHash, nil // git has no empty trees below the root
	}
	list := make([]gitstore.Entry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	return r.git.WriteTree(list)
}

// gitIgnores reports whether the project's git ignores the registry file
// rel (its .gitignore files and .git/info/exclude). Read only when a file
// is in the way, so the whole work tree's rules are read then.
func (r *Registry) gitIgnores(rel string) bool { return r.git.Ignores(r.GitPath(rel)) }

// ChangedFiles lists the files commit h changed, as git paths, sorted.
func (r *Registry) ChangedFiles(h gitstore.Hash) ([]string, error) { return r.git.ChangedFiles(h) }
