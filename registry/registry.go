package registry

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// Options are the settings a registry needs from config.
type Options struct {
	// Roots are the folders (relative to the registry) that hold <name>/SKILL.md.
	Roots []string
	// LockTimeout bounds how long a writer waits for another one.
	LockTimeout time.Duration
	// Warn receives non-fatal problems (malformed skills, junk ledger lines).
	Warn func(string)
}

// Registry is an opened megagit registry inside a git work tree.
type Registry struct {
	root    string // absolute registry folder (holds .megagit/)
	gitRoot string // absolute git work tree root
	gitDir  string // absolute .git folder of this work tree (HEAD, index)
	// commonDir holds what every work tree of the repository shares:
	// branches, objects, config. It is gitDir except in a linked worktree
	// (git worktree add), whose gitDir is .git/worktrees/<name>.
	commonDir string
	// ref is the branch a registry in the ref layout commits to (RefFile);
	// "" in the branch layout, which commits to the checked-out branch.
	ref     gitstore.RefName
	prefix  string // registry folder relative to gitRoot, slash form, "" at top
	git     *gitstore.Store
	opts    Options
	anyLink bool // symlinks may lead outside root (LoadOwnDir)
	// recovered: Open replayed or discarded a journal (Recovered).
	recovered bool
}

// DefaultRoots are used when Options.Roots is empty.
var DefaultRoots = []string{"skills", ".claude/skills"}

// Open finds the registry containing dir and repairs any write a crashed
// process left half done. A .megagit/local that is not a folder (a
// committed symlink, a file) is refused before anything is read there
// (local.ErrLocalDir): `megagit doctor --fix` replaces it (FixLocalDir).
func Open(dir string, opts Options) (*Registry, error) {
	root, err := local.Find(dir)
	if err != nil {
		return nil, err
	}
	if err := local.Open(root, 0).Check(); err != nil {
		return nil, err
	}
	r, err := openAt(root, opts)
	if err != nil {
		return nil, err
	}
	if err := r.recoverIfNeeded(); err != nil {
		return nil, err
	}
	return r, nil
}

func openAt(root string, opts Options) (*Registry, error) {
	if len(opts.Roots) == 0 {
		opts.Roots = DefaultRoots
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 30 * time.Second
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	st, err := gitstore.Open(root, local.Open(realRoot, 0).Path())
	if errors.Is(err, gitstore.ErrNoRepository) {
		return nil, fmt.Errorf("%w: %s has %s but is %v", local.ErrNotRegistry, root, local.MetaDir, err)
	}
	if err != nil {
		return nil, err
	}
	gitRoot := st.WorkTree()
	rel, err := filepath.Rel(gitRoot, realRoot)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%w: %s is outside its git work tree %s", local.ErrNotRegistry, root, gitRoot)
	}
	prefix := filepath.ToSlash(rel)
	if prefix == "." {
		prefix = ""
	}
	ref, err := readRefFile(realRoot)
	if err != nil {
		return nil, err
	}
	return &Registry{root: realRoot, gitRoot: gitRoot, gitDir: st.GitDir(), commonDir: st.CommonDir(), ref: ref, prefix: prefix, git: st, opts: opts}, nil
}

// Root is the registry folder.
func (r *Registry) Root() string { return r.root }

// WorkTree is the root of the git work tree holding the registry; agent
// settings files (.claude/settings.json) live there.
func (r *Registry) WorkTree() string { return r.gitRoot }

// Local is the registry's per-machine folder (.megagit/local/: the lock,
// logs, caches), with the registry's lock timeout.
func (r *Registry) Local() local.Dir { return local.Open(r.root, r.opts.LockTimeout) }

// LocalDir is the gitignored per-machine folder.
func (r *Registry) LocalDir() string { return r.Local().Path() }

// ConfigFile is the committed settings file.
func (r *Registry) ConfigFile() string {
	return filepath.Join(r.root, filepath.FromSlash(local.ConfigPath))
}

// Store is the registry's git repository, for a sync's fetch and push and
// its merge's reads; branches move only through the registry's own writes.
func (r *Registry) Store() *gitstore.Store { return r.git }

// GitDir is the repository's shared .git folder (the main one, from a
// linked worktree too), where a sync repairs what a killed fetch left and
// which keys its cached credentials.
func (r *Registry) GitDir() string { return r.commonDir }

// Options are the settings the registry was opened with, defaults filled
// in, so a sync uses the same skill roots, lock timeout and warnings.
func (r *Registry) Options() Options { return r.opts }

// GitPath turns a registry-relative slash path into a work-tree-relative
// one, as git trees name files.
func (r *Registry) GitPath(rel string) string {
	if r.prefix == "" {
		return rel
	}
	return path.Join(r.prefix, rel)
}

// RelPath turns a work-tree-relative git path into a registry-relative one
// (with "../" steps when it lies outside a registry kept in a subfolder).
func (r *Registry) RelPath(gitPath string) string {
	if r.prefix == "" {
		return gitPath
	}
	if rest, ok := strings.CutPrefix(gitPath, r.prefix+"/"); ok {
		return rest
	}
	return strings.Repeat("../", strings.Count(r.prefix, "/")+1) + gitPath
}

// abs turns a registry-relative slash path into an absolute file path.
func (r *Registry) abs(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

func (r *Registry) warn(format string, args ...any) { r.opts.Warn(fmt.Sprintf(format, args...)) }
