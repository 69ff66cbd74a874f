package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/megagit/megagit/errkind"
)

// Ref resolves ref name to its commit; ErrNoRef when it does not exist.
// A symbolic ref is returned unresolved (use SymRef, then Ref).
func (s *Store) Ref(name RefName) (Hash, error) {
	ref, err := s.repo.Storer.Reference(name)
	if err != nil {
		return ZeroHash, err
	}
	return ref.Hash(), nil
}

// SymRef is the ref a symbolic ref points at (HEAD's branch), and whether
// name is a symbolic ref at all (false for a detached HEAD).
func (s *Store) SymRef(name RefName) (RefName, bool, error) {
	ref, err := s.repo.Storer.Reference(name)
	if err != nil {
		return "", false, err
	}
	if ref.Type() != plumbing.SymbolicReference {
		return "", false, nil
	}
	return ref.Target(), true, nil
}

// HeadCommit is the commit HEAD resolves to, detached or not.
func (s *Store) HeadCommit() (Hash, error) {
	ref, err := s.repo.Head()
	if err != nil {
		return ZeroHash, err
	}
	return ref.Hash(), nil
}

// Ref is a ref and the commit it names.
type Ref struct {
	Name RefName
	Hash Hash
}

// RemoteRefs lists the remote-tracking refs (refs/remotes/...).
func (s *Store) RemoteRefs() ([]Ref, error) {
	iter, err := s.repo.References()
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	var out []Ref
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Name().IsRemote() && ref.Type() == plumbing.HashReference {
			out = append(out, Ref{Name: ref.Name(), Hash: ref.Hash()})
		}
		return nil
	})
	return out, err
}

// SetRef moves branch from old (zero = must not exist yet) to new, checked
// under git's ref lock so a concurrent plain-git commit is never lost: if
// the branch moved meanwhile it returns an error wrapping
// errkind.ErrConflict. A branch already at new (a run interrupted after
// the write) is written again as is. Branches live in the shared git
// folder: from a linked worktree, a ref written under
// .git/worktrees/<name>/ would be one git never reads.
func (s *Store) SetRef(branch RefName, old, new Hash) error {
	target := filepath.Join(s.commonDir, filepath.FromSlash(branch.String()))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	return withLock(target, s.notes, func(f *os.File) error {
		cur := ZeroHash
		if ref, err := s.repo.Storer.Reference(branch); err == nil {
			cur = ref.Hash()
		} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
			return err
		}
		if cur != old && cur != new {
			return fmt.Errorf("%w: %s moved to %s while megagit was writing (expected %s)", errkind.ErrConflict, branch.Short(), Short(cur), Short(old))
		}
		_, err := fmt.Fprintln(f, new.String())
		return err
	})
}

// Short is a hash's first 12 digits, or "nothing" for the zero hash.
func Short(h Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}
