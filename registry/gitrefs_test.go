package registry_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

func refsCheck(r *registry.Registry) doctor.Check {
	for _, c := range r.Doctor() {
		if c.Name == "refs" {
			return c
		}
	}
	return doctor.Check{}
}

// A ref go-git writes (a fetch's remote-tracking ref) replaces the old
// file whole instead of being rewritten in place, so a megagit killed
// while writing it leaves the old ref, never an empty one.
func TestGoGitRefWritesReplaceTheFile(t *testing.T) {
	r := registrytest.New(t, "alpha")
	_, head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	_, next, _ := r.Head()
	name := plumbing.NewRemoteReferenceName("origin", "main")
	st := r.Store().Git().Storer
	if err := st.SetReference(plumbing.NewHashReference(name, head)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(r.GitDir(), "refs", "remotes", "origin", "main")
	before := inode(t, file)
	if err := st.SetReference(plumbing.NewHashReference(name, next)); err != nil {
		t.Fatal(err)
	}
	if inode(t, file) == before {
		t.Error("the ref file was rewritten in place: a kill mid-write would leave it torn")
	}
	if got := strings.TrimSpace(registrytest.ReadFile(t, file)); got != next.String() {
		t.Errorf("ref holds %q, want %s", got, next)
	}
	if _, err := os.Stat(file + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
	// A check against a value the ref no longer has is refused.
	err = st.CheckAndSetReference(plumbing.NewHashReference(name, head), plumbing.NewHashReference(name, head))
	if !errors.Is(err, storage.ErrReferenceHasChanged) {
		t.Errorf("check against a stale value: %v, want ErrReferenceHasChanged", err)
	}
	if err := st.CheckAndSetReference(plumbing.NewHashReference(name, head), plumbing.NewHashReference(name, next)); err != nil {
		t.Errorf("check against the current value: %v", err)
	}
	// A symbolic ref is written as git writes one.
	if err := st.SetReference(plumbing.NewSymbolicReference(plumbing.NewRemoteHEADReferenceName("origin"), name)); err != nil {
		t.Fatal(err)
	}
	if got := registrytest.ReadFile(t, filepath.Join(r.GitDir(), "refs", "remotes", "origin", "HEAD")); got != "ref: refs/remotes/origin/main\n" {
		t.Errorf("symbolic ref file holds %q", got)
	}
	registrytest.Git(t, r, "fsck", "--strict", "--no-progress")
}

// Adding a remote replaces the config file whole too, keeping what
// plain git put in it.
func TestConfigWritesReplaceTheFile(t *testing.T) {
	r := registrytest.New(t, "alpha")
	registrytest.Git(t, r, "config", "user.name", "Ada Example")
	file := filepath.Join(r.GitDir(), "config")
	before := inode(t, file)
	if _, err := r.Store().Git().CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://example.com/skills.git"}}); err != nil {
		t.Fatal(err)
	}
	if inode(t, file) == before {
		t.Error("the config file was rewritten in place: a kill mid-write would leave it torn")
	}
	if got := strings.TrimSpace(registrytest.Git(t, r, "config", "remote.origin.url")); got != "https://example.com/skills.git" {
		t.Errorf("remote.origin.url = %q", got)
	}
	if got := strings.TrimSpace(registrytest.Git(t, r, "config", "user.name")); got != "Ada Example" {
		t.Errorf("user.name = %q after adding a remote", got)
	}
}

// doctor fails on a torn ref and on a git lock a killed megagit left, and
// doctor's repair removes the lock and the torn remote-tracking ref, after
// which plain git works again; a torn branch is reported, never removed.
func TestDoctorFindsTornRefsAndLeftLocks(t *testing.T) {
	r := registrytest.New(t, "alpha")
	if c := refsCheck(r); c.Status != doctor.OK {
		t.Fatalf("refs check on a fresh registry: %+v", c)
	}
	remote := filepath.Join(r.GitDir(), "refs", "remotes", "origin", "main")
	if err := os.MkdirAll(filepath.Dir(remote), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(remote, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	branch, _, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	headFile := filepath.Join(r.GitDir(), filepath.FromSlash(branch.String()))
	if err := r.LeaveGitLock(headFile, deadPID(t)); err != nil {
		t.Fatal(err)
	}
	c := refsCheck(r)
	if c.Status != doctor.Fail || !strings.Contains(c.Detail, "refs/remotes/origin/main") || !strings.Contains(c.Detail, headFile+".lock") || !strings.Contains(c.Hint, "doctor --fix") {
		t.Fatalf("refs check: %+v", c)
	}
	if got, err := r.RemoveStaleGitLocks(); err != nil || len(got) != 1 || got[0] != headFile+".lock" {
		t.Errorf("removed locks %v (%v)", got, err)
	}
	if got := r.RemoveTornRemoteRefs(); len(got) != 1 || got[0] != "refs/remotes/origin/main" {
		t.Errorf("removed refs %v", got)
	}
	if c := refsCheck(r); c.Status != doctor.OK {
		t.Fatalf("refs check after the repair: %+v", c)
	}
	registrytest.Git(t, r, "fsck", "--strict", "--no-progress")
	registrytest.Git(t, r, "update-ref", branch.String(), "HEAD") // plain git may write the branch again

	// A torn tag is named with a way to restore it, and left alone.
	tag := filepath.Join(r.GitDir(), "refs", "tags", "v1")
	if err := os.MkdirAll(filepath.Dir(tag), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tag, []byte("3f2a9c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := refsCheck(r); c.Status != doctor.Fail || !strings.Contains(c.Hint, "git update-ref refs/tags/v1") {
		t.Fatalf("refs check on a torn tag: %+v", c)
	}
	r.RemoveTornRemoteRefs()
	if _, err := os.Stat(tag); err != nil {
		t.Errorf("the torn tag was removed: %v", err)
	}
}

// Listing refs (what every fetch and push does first) reads them as git
// does: a lock file of a ref being written at that moment and a torn ref
// are skipped instead of failing the listing, and packed refs are read
// unless a loose one replaces them.
func TestRefListingSkipsLocksAndReadsPackedRefs(t *testing.T) {
	r := registrytest.New(t, "alpha")
	registrytest.Git(t, r, "tag", "v1")
	registrytest.Git(t, r, "pack-refs", "--all")
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful) // main: loose again, newer than its packed line
	want := registrytest.Git(t, r, "for-each-ref", "--format=%(refname) %(objectname)")
	tags := filepath.Join(r.GitDir(), "refs", "tags")
	for name, data := range map[string]string{"v2.lock": "", "torn": ""} {
		if err := os.WriteFile(filepath.Join(tags, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	iter, err := r.Store().Git().References()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var head *plumbing.Reference
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Name() == plumbing.HEAD {
			head = ref
			return nil
		}
		got = append(got, ref.Name().String()+" "+ref.Hash().String())
		return nil
	})
	if err != nil {
		t.Fatalf("listing refs with a lock file and a torn ref present: %v", err)
	}
	slices.Sort(got)
	if g := strings.Join(got, "\n") + "\n"; g != want {
		t.Errorf("refs listed:\n%s\nwant (git for-each-ref):\n%s", g, want)
	}
	if head == nil || head.Type() != plumbing.SymbolicReference {
		t.Errorf("HEAD listed as %v, want the symbolic ref", head)
	}
}

// From a linked worktree (git worktree add), a remote-tracking ref lands
// in the shared git folder and HEAD in the worktree's own, where git reads
// each; a pseudo-ref such as ORIG_HEAD is written by go-git as before.
func TestRefWritesGoWhereGitReadsThem(t *testing.T) {
	main := registrytest.New(t, "alpha")
	wt := linkedWorktree(t, main)
	_, head, err := main.Head()
	if err != nil {
		t.Fatal(err)
	}
	st := wt.Store().Git().Storer
	remote := plumbing.NewRemoteReferenceName("origin", "main")
	if err := st.SetReference(plumbing.NewHashReference(remote, head)); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(registrytest.Git(t, main, "rev-parse", "origin/main")); got != head.String() {
		t.Errorf("the main work tree sees origin/main at %q, want %s", got, head)
	}
	mainHead := registrytest.Git(t, main, "symbolic-ref", "HEAD")
	if err := st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("other"))); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(registrytest.Git(t, wt, "symbolic-ref", "HEAD")); got != "refs/heads/other" {
		t.Errorf("the worktree's HEAD is %q, want refs/heads/other", got)
	}
	if got := registrytest.Git(t, main, "symbolic-ref", "HEAD"); got != mainHead {
		t.Errorf("the main work tree's HEAD moved: %q, was %q", got, mainHead)
	}
	if err := st.SetReference(plumbing.NewHashReference("ORIG_HEAD", head)); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(registrytest.Git(t, wt, "rev-parse", "ORIG_HEAD")); got != head.String() {
		t.Errorf("ORIG_HEAD is %q, want %s", got, head)
	}
}
