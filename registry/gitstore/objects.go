package gitstore

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrStop ends a walk (Log, Tree.Walk, Tree.Files) early without an error.
var ErrStop = storer.ErrStop

// Tree is a tree object. A nil *Tree is an empty tree: it holds nothing,
// so one side of a merge that does not exist yet reads as empty.
type Tree struct {
	t *object.Tree
}

func wrapTree(t *object.Tree) *Tree {
	if t == nil {
		return nil
	}
	return &Tree{t: t}
}

// Hash is the tree's hash (zero for the empty tree).
func (t *Tree) Hash() Hash {
	if t == nil {
		return ZeroHash
	}
	return t.t.Hash
}

// Entries lists the tree's own entries, in git's order.
func (t *Tree) Entries() []Entry {
	if t == nil {
		return nil
	}
	out := make([]Entry, len(t.t.Entries))
	for i, e := range t.t.Entries {
		out[i] = Entry{Name: e.Name, Mode: e.Mode, Hash: e.Hash}
	}
	return out
}

// notThere is what go-git says of a path a tree does not hold.
func notThere(err error) bool {
	return errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound)
}

// Read returns the content of the file at slash path p, and whether the
// tree holds a file there.
func (t *Tree) Read(p string) ([]byte, bool, error) {
	if t == nil {
		return nil, false, nil
	}
	f, err := t.t.File(p)
	if notThere(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s, err := f.Contents()
	return []byte(s), true, err
}

// Find returns the entry at slash path p (a file or a folder), and
// whether there is one.
func (t *Tree) Find(p string) (Entry, bool, error) {
	if t == nil {
		return Entry{}, false, nil
	}
	e, err := t.t.FindEntry(p)
	if notThere(err) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	return Entry{Name: e.Name, Mode: e.Mode, Hash: e.Hash}, true, nil
}

// Sub returns the folder at slash path p, or nil when there is none.
func (t *Tree) Sub(p string) (*Tree, error) {
	if t == nil {
		return nil, nil
	}
	sub, err := t.t.Tree(p)
	if notThere(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return wrapTree(sub), nil
}

// File is one file of a tree, as Files gives it.
type File struct {
	Path string // slash path from the tree's root
	Mode Mode
	Hash Hash
	f    *object.File
}

// Data reads the file's content.
func (f File) Data() ([]byte, error) {
	s, err := f.f.Contents()
	return []byte(s), err
}

// Files calls fn for every file (blob) below the tree, folders walked,
// submodules left out, in git's order; ErrStop ends the walk.
func (t *Tree) Files(fn func(File) error) error {
	if t == nil {
		return nil
	}
	err := t.t.Files().ForEach(func(f *object.File) error {
		return fn(File{Path: f.Name, Mode: f.Mode, Hash: f.Hash, f: f})
	})
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// Walk calls fn for every entry below the tree, folders included (a
// folder before what it holds), with its slash path; ErrStop ends it.
func (t *Tree) Walk(fn func(p string, e Entry) error) error {
	if t == nil {
		return nil
	}
	w := object.NewTreeWalker(t.t, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(name, Entry{Name: e.Name, Mode: e.Mode, Hash: e.Hash}); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
}

// DiffPaths lists the file paths whose content or mode differ between
// two trees (either may be nil, the empty tree), in the trees' order.
func DiffPaths(from, to *Tree) ([]string, error) {
	a, b := &object.Tree{}, &object.Tree{}
	if from != nil {
		a = from.t
	}
	if to != nil {
		b = to.t
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(changes))
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		out = append(out, name)
	}
	return out, nil
}

// Tree reads the tree object h.
func (s *Store) Tree(h Hash) (*Tree, error) {
	t, err := s.repo.TreeObject(h)
	if err != nil {
		return nil, err
	}
	return wrapTree(t), nil
}

// CommitTree returns the root tree of commit h, or nil (the empty tree)
// for the zero hash.
func (s *Store) CommitTree(h Hash) (*Tree, error) {
	if h.IsZero() {
		return nil, nil
	}
	c, err := s.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	return wrapTree(t), nil
}

func fromCommit(c *object.Commit) *Commit {
	return &Commit{
		Hash: c.Hash, Tree: c.TreeHash, Parents: c.ParentHashes,
		Author:    Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
		Message:   c.Message,
	}
}

// Commit reads commit h.
func (s *Store) Commit(h Hash) (*Commit, error) {
	c, err := s.repo.CommitObject(h)
	if err != nil {
		return nil, err
	}
	return fromCommit(c), nil
}

// Blob reads blob h.
func (s *Store) Blob(h Hash) ([]byte, error) { return s.object(plumbing.BlobObject, h) }

// RawCommit is commit h's stored object, byte for byte.
func (s *Store) RawCommit(h Hash) ([]byte, error) { return s.object(plumbing.CommitObject, h) }

// object reads the content of object h of type t.
func (s *Store) object(t plumbing.ObjectType, h Hash) ([]byte, error) {
	obj, err := s.repo.Storer.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// WriteBlob stores data as a blob.
func (s *Store) WriteBlob(data []byte) (Hash, error) {
	obj := s.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return ZeroHash, err
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// WriteTree stores a tree of entries, in git's order whatever theirs.
func (s *Store) WriteTree(entries []Entry) (Hash, error) {
	t := &object.Tree{Entries: make([]object.TreeEntry, len(entries))}
	for i, e := range entries {
		t.Entries[i] = object.TreeEntry{Name: e.Name, Mode: e.Mode, Hash: e.Hash}
	}
	sort.Sort(object.TreeEntrySorter(t.Entries))
	obj := s.repo.Storer.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return ZeroHash, err
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// WriteCommit stores commit c (its Hash is ignored) and returns its hash.
func (s *Store) WriteCommit(c Commit) (Hash, error) {
	oc := &object.Commit{
		Author:    object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer: object.Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
		Message:   c.Message, TreeHash: c.Tree, ParentHashes: c.Parents,
	}
	obj := s.repo.Storer.NewEncodedObject()
	if err := oc.Encode(obj); err != nil {
		return ZeroHash, err
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// Log calls fn for commit from and its ancestors, each once: newest
// committer time first when byTime, else depth first as `git log
// --topo-order` would start; ErrStop ends the walk.
func (s *Store) Log(from Hash, byTime bool, fn func(*Commit) error) error {
	start, err := s.repo.CommitObject(from)
	if err != nil {
		return fmt.Errorf("read commit %s: %w", from, err)
	}
	var iter object.CommitIter
	if byTime {
		iter = object.NewCommitIterCTime(start, nil, nil)
	} else {
		iter = object.NewCommitPreorderIter(start, nil, nil)
	}
	defer iter.Close()
	err = iter.ForEach(func(c *object.Commit) error { return fn(fromCommit(c)) })
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// Resolve turns a revision git understands (a hash, a branch, HEAD~2)
// into a commit hash.
func (s *Store) Resolve(rev string) (Hash, error) {
	h, err := s.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return ZeroHash, err
	}
	return *h, nil
}

// ChangedFiles lists the files commit h changed against its first
// parent (all of them for a root commit), as work-tree paths, sorted.
func (s *Store) ChangedFiles(h Hash) ([]string, error) {
	c, err := s.repo.CommitObject(h)
	if err != nil {
		return nil, err
	}
	stats, err := c.Stats()
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(stats))
	for _, st := range stats {
		files = append(files, st.Name)
	}
	sort.Strings(files)
	return files, nil
}

// BlobSize is the size of blob h, read from its header.
func (s *Store) BlobSize(h Hash) (int64, error) {
	obj, err := s.repo.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return 0, err
	}
	return obj.Size(), nil
}

// MergeBases are the best common ancestors of commits a and b (none for
// unrelated histories; more than one after a criss-cross merge).
func (s *Store) MergeBases(a, b Hash) ([]Hash, error) {
	ac, err := s.repo.CommitObject(a)
	if err != nil {
		return nil, err
	}
	bc, err := s.repo.CommitObject(b)
	if err != nil {
		return nil, err
	}
	bases, err := ac.MergeBase(bc)
	if err != nil {
		return nil, err
	}
	out := make([]Hash, len(bases))
	for i, c := range bases {
		out[i] = c.Hash
	}
	return out, nil
}
