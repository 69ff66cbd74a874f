package gitstore

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Store is one opened git repository (work tree, git folder, objects).
type Store struct {
	repo     *git.Repository
	workTree string // the work tree's root, symlinks resolved
	gitDir   string // this work tree's git folder (HEAD, index)
	// commonDir holds what every work tree of the repository shares:
	// branches, objects, config. It is gitDir except in a linked worktree
	// (git worktree add), whose gitDir is .git/worktrees/<name>.
	commonDir string
	notes     string // where withLock notes its locks ("" for none)
}

// Open opens the repository whose work tree holds dir (dir itself or a
// folder above it), linked worktrees included. notes is the folder where
// the store notes the git locks it holds, so that a lock left by a killed
// process is known for one (StaleLocks); "" for a store that only reads.
// Outside any repository it returns an error wrapping ErrNoRepository.
func Open(dir, notes string) (*Store, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%w: %v", ErrNoRepository, err)
	}
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open git work tree: %w", err)
	}
	st, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, errors.New("unsupported git storage")
	}
	top, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return nil, err
	}
	gitDir := st.Filesystem().Root()
	s := &Store{repo: repo, workTree: top, gitDir: gitDir, commonDir: commonGitDir(gitDir), notes: notes}
	repo.Storer = &refStorer{Storage: st, s: s}
	return s, nil
}

// IsRepository reports whether dir lies inside a git repository.
func IsRepository(dir string) (bool, error) {
	_, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	return true, nil
}

// Init creates an empty repository in dir whose first branch is main.
func Init(dir string) error {
	_, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: BranchRef("main")},
	})
	if err != nil {
		return fmt.Errorf("git init %s: %w", dir, err)
	}
	return nil
}

// SetLocalIdentity writes user.name and user.email into the
// repository's own config.
func (s *Store) SetLocalIdentity(name, email string) error {
	cfg, err := s.repo.Config()
	if err != nil {
		return err
	}
	cfg.User.Name, cfg.User.Email = name, email
	return s.repo.SetConfig(cfg)
}

// commonGitDir is where git keeps the branches of the repository whose
// work-tree git folder is gitDir: the folder its commondir file names (a
// linked worktree's), else gitDir itself.
func commonGitDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	dir := strings.TrimSpace(string(data))
	if dir == "" {
		return gitDir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return filepath.Clean(dir)
}

// WorkTree is the work tree's root.
func (s *Store) WorkTree() string { return s.workTree }

// GitDir is this work tree's own git folder (HEAD, index, an operation
// in progress); in a linked worktree, .git/worktrees/<name>.
func (s *Store) GitDir() string { return s.gitDir }

// CommonDir is the git folder every work tree shares (branches, objects,
// config, credentials' key).
func (s *Store) CommonDir() string { return s.commonDir }

// Git is the go-git repository itself, for the packages that fetch and
// push (registry/regsync); its refs and config are written through the
// store's locks.
func (s *Store) Git() *git.Repository { return s.repo }

// Remotes lists the repository's remotes' names.
func (s *Store) Remotes() ([]string, error) {
	cfg, err := s.repo.Config()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(cfg.Remotes))
	for n := range cfg.Remotes {
		out = append(out, n)
	}
	return out, nil
}

// Identity is the git identity the repository's config gives (its own,
// then the user's, then the system's), each part from the first scope
// that sets it; author.* wins over user.* within a scope.
func (s *Store) Identity() (name, email string) {
	for _, scope := range []config.Scope{config.LocalScope, config.GlobalScope, config.SystemScope} {
		cfg, err := s.repo.ConfigScoped(scope)
		if err != nil {
			continue
		}
		name = cmp.Or(name, cfg.Author.Name, cfg.User.Name)
		email = cmp.Or(email, cfg.Author.Email, cfg.User.Email)
		if name != "" && email != "" {
			break
		}
	}
	return name, email
}

// Ignores reports whether the work tree's git ignores the file at the
// work-tree-relative slash path p (its .gitignore files and
// .git/info/exclude). Every rule of the work tree is read for each call.
func (s *Store) Ignores(p string) bool {
	wt, err := s.repo.Worktree()
	if err != nil {
		return false
	}
	ps, err := gitignore.ReadPatterns(wt.Filesystem, nil)
	if err != nil {
		return false
	}
	return gitignore.NewMatcher(ps).Match(strings.Split(p, "/"), false)
}
