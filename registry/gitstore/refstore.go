package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// refStorer is the repository's storage with go-git's ref and config
// writes made atomic. go-git opens a loose ref file truncated and then
// writes the new hash into it, so a megagit killed in between (a fetch
// updating refs/remotes/origin/main, say) leaves an empty ref that git
// reports as broken. Here every ref go-git writes goes through git's lock
// file and a rename, as SetRef does for the registry's own branch: a kill
// leaves the old ref or the new one, never a torn one.
type refStorer struct {
	*filesystem.Storage
	s *Store
}

// SetReference writes ref whatever its current value.
func (s *refStorer) SetReference(ref *plumbing.Reference) error {
	return s.CheckAndSetReference(ref, nil)
}

// CheckAndSetReference writes ref if the current value of old's name is
// still old (any value when old is nil), checked under the ref's lock.
func (s *refStorer) CheckAndSetReference(ref, old *plumbing.Reference) error {
	if ref == nil {
		return nil
	}
	var content string
	switch ref.Type() {
	case plumbing.HashReference:
		content = ref.Hash().String() + "\n"
	case plumbing.SymbolicReference:
		content = "ref: " + ref.Target().String() + "\n"
	default:
		return fmt.Errorf("reference %s: invalid type", ref.Name())
	}
	target, ok := s.refPath(ref.Name())
	if !ok {
		// A pseudo-ref or a name git would refuse: go-git's own checks
		// and write.
		return s.Storage.CheckAndSetReference(ref, old)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	return withLock(target, s.s.notes, func(f *os.File) error {
		if old != nil {
			cur, err := s.Storage.Reference(old.Name())
			if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
				return err
			}
			if cur == nil || cur.Hash() != old.Hash() {
				return storage.ErrReferenceHasChanged
			}
		}
		_, err := f.WriteString(content)
		return err
	})
}

// IterReferences lists the repository's refs as git does: HEAD, the loose
// refs, then the packed ones a loose ref does not replace. go-git reads
// every file under refs/, lock files too, so a ref that git or megagit is
// writing at that moment (refs/heads/main.lock beside refs/heads/main)
// failed the whole listing, and with it a fetch or a push. Lock files are
// skipped here, and so is a torn loose ref, as if it were not there.
func (s *refStorer) IterReferences() (storer.ReferenceIter, error) {
	var refs []*plumbing.Reference
	head, err := s.Storage.Reference(plumbing.HEAD)
	switch {
	case err == nil:
		refs = append(refs, head)
	case !errors.Is(err, plumbing.ErrReferenceNotFound) && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	seen := map[plumbing.ReferenceName]bool{}
	err = walkLooseRefs(s.s.commonDir, func(name, line string, valid bool) {
		if valid {
			ref := plumbing.NewReferenceFromStrings(name, line)
			refs, seen[ref.Name()] = append(refs, ref), true
		}
	})
	if err != nil {
		return nil, err
	}
	packed, err := os.ReadFile(filepath.Join(s.s.commonDir, "packed-refs"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, line := range strings.Split(string(packed), "\n") {
		hash, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(hash, "#") || strings.HasPrefix(hash, "^") || !plumbing.IsHash(hash) {
			continue
		}
		if n := plumbing.ReferenceName(name); !seen[n] {
			refs, seen[n] = append(refs, plumbing.NewHashReference(n, plumbing.NewHash(hash))), true
		}
	}
	return storer.NewReferenceSliceIter(refs), nil
}

// SetConfig writes the repository's config file (a remote added, say)
// the same way: go-git, too, truncates it before writing it again.
func (s *refStorer) SetConfig(cfg *config.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	data, err := cfg.Marshal()
	if err != nil {
		return err
	}
	return withLock(filepath.Join(s.s.commonDir, "config"), s.s.notes, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// refPath is the loose file of HEAD or a valid name under refs/, in the
// folder git keeps it in: the shared one, except for HEAD and the refs git
// keeps per work tree. It reports false for any other name.
func (s *refStorer) refPath(name plumbing.ReferenceName) (string, bool) {
	n := name.String()
	switch {
	case name == plumbing.HEAD:
		return filepath.Join(s.s.gitDir, n), true
	case !strings.HasPrefix(n, "refs/") || name.Validate() != nil:
		return "", false
	case perWorktreeRef(n):
		return filepath.Join(s.s.gitDir, filepath.FromSlash(n)), true
	}
	return filepath.Join(s.s.commonDir, filepath.FromSlash(n)), true
}

func perWorktreeRef(n string) bool {
	for _, p := range []string{"refs/bisect/", "refs/rewritten/", "refs/worktree/"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// TornRefs lists the loose ref files (paths under the git folder, like
// "refs/remotes/origin/main") that hold neither a commit hash nor a
// "ref: " line: what a git tool killed while writing a ref in place
// leaves, and what git fsck reports as a broken ref.
func (s *Store) TornRefs() []string {
	var out []string
	collect := func(name, _ string, valid bool) {
		if !valid {
			out = append(out, name)
		}
	}
	_ = walkLooseRefs(s.commonDir, collect)
	if s.gitDir != s.commonDir { // a linked worktree's own refs
		_ = walkLooseRefs(s.gitDir, collect)
	}
	sort.Strings(out)
	return out
}

// walkLooseRefs gives fn every loose ref file under base/refs, lock files
// left out: its name ("refs/heads/main"), its content trimmed, and whether
// that content is a ref (a hash or a "ref: " line). A file removed while
// the walk runs is skipped, as git skips it.
func walkLooseRefs(base string, fn func(name, line string, valid bool)) error {
	return filepath.WalkDir(filepath.Join(base, "refs"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		line := strings.TrimSpace(string(data))
		fn(filepath.ToSlash(rel), line, strings.HasPrefix(line, "ref: ") || plumbing.IsHash(line))
		return nil
	})
}

// RemoveTornRemoteRefs deletes the torn refs under refs/remotes/ and
// returns them. They only mirror a remote, so the next fetch writes them
// again; left alone, they make every fetch fail. Torn refs elsewhere (a
// branch or a tag) are never deleted: their commit has to be found again.
func (s *Store) RemoveTornRemoteRefs() []string {
	var out []string
	for _, rel := range s.TornRefs() {
		if !strings.HasPrefix(rel, "refs/remotes/") {
			continue
		}
		p := filepath.Join(s.commonDir, filepath.FromSlash(rel))
		if err := os.Remove(p); err == nil || errors.Is(err, os.ErrNotExist) {
			out = append(out, rel)
		}
	}
	return out
}
