package gitstore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/megagit/megagit/errkind"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	notes := t.TempDir()
	s, err := Open(dir, notes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// commit writes files (path -> content) as one root-tree commit on main.
func commit(t *testing.T, s *Store, parent Hash, files map[string]string) Hash {
	t.Helper()
	// Build nested trees from the flat paths, deepest folders first.
	type dir struct {
		entries map[string]Entry
		subs    map[string]*dir
	}
	root := &dir{entries: map[string]Entry{}, subs: map[string]*dir{}}
	for p, data := range files {
		d := root
		parts := splitPath(p)
		for _, part := range parts[:len(parts)-1] {
			if d.subs[part] == nil {
				d.subs[part] = &dir{entries: map[string]Entry{}, subs: map[string]*dir{}}
			}
			d = d.subs[part]
		}
		h, err := s.WriteBlob([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		name := parts[len(parts)-1]
		d.entries[name] = Entry{Name: name, Mode: Regular, Hash: h}
	}
	var write func(d *dir) Hash
	write = func(d *dir) Hash {
		var list []Entry
		for name, sub := range d.subs {
			list = append(list, Entry{Name: name, Mode: Dir, Hash: write(sub)})
		}
		for _, e := range d.entries {
			list = append(list, e)
		}
		h, err := s.WriteTree(list)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	sig := Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	c := Commit{Tree: write(root), Author: sig, Committer: sig, Message: "files\n"}
	if !parent.IsZero() {
		c.Parents = []Hash{parent}
	}
	h, err := s.WriteCommit(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetRef(BranchRef("main"), parent, h); err != nil {
		t.Fatal(err)
	}
	return h
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// What the store writes, plain git reads back: the commit on main, its
// files, its message.
func TestWrittenCommitIsGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	s := newStore(t)
	commit(t, s, ZeroHash, map[string]string{"skills/a/SKILL.md": "alpha\n", "README.md": "hi\n"})
	out, err := exec.Command("git", "-C", s.WorkTree(), "show", "main:skills/a/SKILL.md").CombinedOutput()
	if err != nil || string(out) != "alpha\n" {
		t.Fatalf("git show: %q %v", out, err)
	}
	if out, err := exec.Command("git", "-C", s.WorkTree(), "fsck", "--strict").CombinedOutput(); err != nil {
		t.Fatalf("git fsck --strict: %s %v", out, err)
	}
}

// A tree reads files, folders and absent paths; the nil tree is empty.
func TestTreeReads(t *testing.T) {
	s := newStore(t)
	h := commit(t, s, ZeroHash, map[string]string{"skills/a/SKILL.md": "alpha\n", "skills/a/ref/x.md": "x\n", "top.txt": "t\n"})
	tree, err := s.CommitTree(h)
	if err != nil {
		t.Fatal(err)
	}
	if data, ok, err := tree.Read("skills/a/SKILL.md"); err != nil || !ok || string(data) != "alpha\n" {
		t.Fatalf("Read: %q %v %v", data, ok, err)
	}
	for _, p := range []string{"skills/b/SKILL.md", "nope", "top.txt/below"} {
		if _, ok, err := tree.Read(p); ok || err != nil {
			t.Errorf("Read(%s): ok %v err %v, want absent", p, ok, err)
		}
	}
	if e, ok, _ := tree.Find("skills/a"); !ok || e.Mode != Dir {
		t.Errorf("Find(skills/a) = %+v %v, want a folder", e, ok)
	}
	sub, err := tree.Sub("skills/a")
	if err != nil || sub == nil {
		t.Fatalf("Sub: %v %v", sub, err)
	}
	var files []string
	if err := sub.Files(func(f File) error { files = append(files, f.Path); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{"SKILL.md", "ref/x.md"}) {
		t.Errorf("Files = %v", files)
	}
	var walked []string
	_ = tree.Walk(func(p string, e Entry) error { walked = append(walked, p); return nil })
	if !slices.Contains(walked, "skills/a/ref") || !slices.Contains(walked, "skills/a/ref/x.md") {
		t.Errorf("Walk = %v, want folders and files", walked)
	}
	if none, _ := tree.Sub("nope"); none != nil {
		t.Errorf("Sub(nope) = %v, want nil", none)
	}
	var empty *Tree
	if _, ok, err := empty.Read("x"); ok || err != nil || empty.Hash() != ZeroHash || len(empty.Entries()) != 0 {
		t.Error("the nil tree is not empty")
	}
	if nt, err := s.CommitTree(ZeroHash); nt != nil || err != nil {
		t.Errorf("CommitTree(zero) = %v %v", nt, err)
	}
}

// DiffPaths names what changed between two commits, the empty tree too.
func TestDiffPaths(t *testing.T) {
	s := newStore(t)
	a := commit(t, s, ZeroHash, map[string]string{"x": "1", "d/y": "2"})
	b := commit(t, s, a, map[string]string{"x": "1", "d/y": "3", "z": "4"})
	ta, _ := s.CommitTree(a)
	tb, _ := s.CommitTree(b)
	got, err := DiffPaths(ta, tb)
	if err != nil || !slices.Equal(got, []string{"d/y", "z"}) {
		t.Errorf("DiffPaths = %v %v", got, err)
	}
	got, _ = DiffPaths(nil, ta)
	if !slices.Equal(got, []string{"d/y", "x"}) {
		t.Errorf("DiffPaths(empty, a) = %v", got)
	}
	if files, err := s.ChangedFiles(b); err != nil || !slices.Equal(files, []string{"d/y", "z"}) {
		t.Errorf("ChangedFiles = %v %v", files, err)
	}
}

// SetRef refuses to move a branch someone else moved, and names it.
func TestSetRefRefusesAMovedBranch(t *testing.T) {
	s := newStore(t)
	a := commit(t, s, ZeroHash, map[string]string{"x": "1"})
	b := commit(t, s, a, map[string]string{"x": "2"})
	err := s.SetRef(BranchRef("main"), a, b) // already at b: rewritten as is
	if err != nil {
		t.Fatalf("SetRef to where it is: %v", err)
	}
	err = s.SetRef(BranchRef("main"), ZeroHash, a)
	if !errors.Is(err, errkind.ErrConflict) {
		t.Fatalf("SetRef from a stale value: %v, want ErrConflict", err)
	}
	if h, _ := s.Ref(BranchRef("main")); h != b {
		t.Errorf("main = %s, want %s", h, b)
	}
	if _, err := s.Ref(BranchRef("nope")); !errors.Is(err, ErrNoRef) {
		t.Errorf("Ref(nope) err = %v, want ErrNoRef", err)
	}
	n := 0
	if err := s.Log(b, true, func(*Commit) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("Log walked %d commits (%v), want 2", n, err)
	}
	if err := s.Log(b, false, func(*Commit) error { return ErrStop }); err != nil {
		t.Errorf("Log stopped early: %v", err)
	}
}

// A lock a killed process left is taken over when its note names a dead
// pid, and listed then removed by StaleLocks/RemoveStaleLocks; a lock
// without a note (git's) is never removed.
func TestStaleLocks(t *testing.T) {
	s := newStore(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(s.CommonDir(), "refs", "heads", "stale")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	lock := target + ".lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	note := LockNotePath(s.notes, lock)
	if err := os.WriteFile(note, []byte(fmt.Sprintf("%d\n%s\n", dead.Process.Pid, lock)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitsLock := filepath.Join(s.CommonDir(), "refs", "heads", "gits.lock")
	if err := os.WriteFile(gitsLock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.StaleLocks(); !slices.Equal(got, []string{lock}) {
		t.Fatalf("StaleLocks = %v, want %s", got, lock)
	}
	if got := s.RemoveStaleLocks(); !slices.Equal(got, []string{lock}) {
		t.Fatalf("RemoveStaleLocks = %v", got)
	}
	if _, err := os.Stat(gitsLock); err != nil {
		t.Errorf("git's own lock was removed: %v", err)
	}
	if _, err := os.Stat(note); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the note stayed: %v", err)
	}
}

// UpdateIndex changes the edited paths only: the user's staged file stays.
func TestUpdateIndexKeepsOtherEntries(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	s := newStore(t)
	staged := filepath.Join(s.WorkTree(), "mine.txt")
	if err := os.WriteFile(staged, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", s.WorkTree(), "add", "mine.txt").CombinedOutput(); err != nil {
		t.Fatalf("git add: %s %v", out, err)
	}
	file := filepath.Join(s.WorkTree(), "skills", "a", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateIndex([]IndexEdit{{Path: "skills/a/SKILL.md", Data: []byte("alpha\n"), File: file}}); err != nil {
		t.Fatal(err)
	}
	paths, err := s.IndexPaths()
	if err != nil || !slices.Equal(paths, []string{"mine.txt", "skills/a/SKILL.md"}) {
		t.Fatalf("IndexPaths = %v %v", paths, err)
	}
	out, err := exec.Command("git", "-C", s.WorkTree(), "status", "--porcelain").CombinedOutput()
	if err != nil || string(out) != "A  mine.txt\nA  skills/a/SKILL.md\n" {
		t.Errorf("git status: %q %v", out, err)
	}
}

// MergeBases finds where two lines of history meet, and nothing for two
// that never do.
func TestMergeBases(t *testing.T) {
	s := newStore(t)
	a := commit(t, s, ZeroHash, map[string]string{"x": "1"})
	b := commit(t, s, a, map[string]string{"x": "2"})
	if bases, err := s.MergeBases(b, a); err != nil || !slices.Equal(bases, []Hash{a}) {
		t.Errorf("MergeBases(b, a) = %v %v, want [a]", bases, err)
	}
	sig := Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000001, 0)}
	tree, err := s.WriteTree([]Entry{})
	if err != nil {
		t.Fatal(err)
	}
	lone, err := s.WriteCommit(Commit{Tree: tree, Author: sig, Committer: sig, Message: "apart\n"})
	if err != nil {
		t.Fatal(err)
	}
	if bases, err := s.MergeBases(b, lone); err != nil || len(bases) != 0 {
		t.Errorf("MergeBases of unrelated commits = %v %v, want none", bases, err)
	}
}
