package regsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/registrytest"
)

// newTeam makes a bare remote holding a registry with the given skills and
// n clones of it, ready to sync.
func newTeam(t *testing.T, n int, skills ...string) []*registry.Registry {
	t.Helper()
	if _, err := os.Stat("/usr/bin/git"); err != nil {
		if _, err := os.Stat("/usr/local/bin/git"); err != nil {
			t.Skip("file:// remotes need git-upload-pack")
		}
	}
	first := registrytest.New(t, skills...)
	bare := filepath.Join(t.TempDir(), "remote.git")
	if _, err := git.PlainInit(bare, true); err != nil {
		t.Fatal(err)
	}
	url := "file://" + bare
	if err := AddRemote(first, "origin", url); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(context.Background(), first, Options{}); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	team := []*registry.Registry{first}
	for i := 1; i < n; i++ {
		r, err := Clone(context.Background(), url, filepath.Join(t.TempDir(), "clone"), registry.Options{Roots: []string{"skills"}})
		if err != nil {
			t.Fatalf("clone: %v", err)
		}
		team = append(team, r)
	}
	return team
}

func syncOK(t *testing.T, r *registry.Registry, opts Options) *Result {
	t.Helper()
	res, err := Sync(context.Background(), r, opts)
	if err != nil {
		t.Fatalf("sync %s: %v", r.Root(), err)
	}
	return res
}

func ledgerIDSet(t *testing.T, r *registry.Registry) map[string]int {
	t.Helper()
	out := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(r.Root(), ".megagit", "ledger", "*.jsonl"))
	for _, f := range files {
		for _, line := range strings.Split(registrytest.ReadFile(t, f), "\n") {
			if e, err := ledger.ParseLine("", []byte(line)); err == nil {
				out[e.ID]++ // every line: a verdict merged twice counts twice
			}
		}
	}
	return out
}

func TestSyncPushRaceRetries(t *testing.T) {
	team := newTeam(t, 2, "s")
	a, b := team[0], team[1]
	registrytest.Verdict(t, a, "s", lifecycle.Helpful)
	registrytest.Verdict(t, b, "s", lifecycle.Harmful)
	moved := 0
	res, err := Sync(context.Background(), b, Options{beforePush: func(attempt int) {
		if attempt == 1 { // a teammate pushes between our fetch and our push
			registrytest.Verdict(t, a, "s", lifecycle.Helpful)
			syncOK(t, a, Options{})
			moved++
		}
	}})
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	if moved != 1 || res.Attempts != 2 || !res.Pushed {
		t.Fatalf("want a pushed second attempt, got %+v", res)
	}
	syncOK(t, a, Options{})
	for _, r := range team {
		ids := ledgerIDSet(t, r)
		if len(ids) != 3 {
			t.Fatalf("%s: %d verdicts, want 3: %v", r.Root(), len(ids), ids)
		}
	}
}

func TestSyncPushRaceGivesUp(t *testing.T) {
	team := newTeam(t, 2, "s")
	a, b := team[0], team[1]
	registrytest.Verdict(t, b, "s", lifecycle.Harmful)
	_, err := Sync(context.Background(), b, Options{beforePush: func(int) {
		registrytest.Verdict(t, a, "s", lifecycle.Helpful)
		syncOK(t, a, Options{})
	}})
	if !errors.Is(err, registry.ErrConflict) || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Fatalf("want a bounded give-up, got %v", err)
	}
	// Nothing local is lost: b's verdict and the two it merged before the
	// last push failed are there.
	if ids := ledgerIDSet(t, b); len(ids) != 3 {
		t.Fatalf("b holds %d verdicts, want 3", len(ids))
	}
	syncOK(t, b, Options{})
	syncOK(t, a, Options{})
	if ids := ledgerIDSet(t, a); len(ids) != 4 {
		t.Fatalf("a holds %d verdicts after the retry, want 4", len(ids))
	}
}

func TestSyncDirtyFileStopsBeforeWriting(t *testing.T) {
	team := newTeam(t, 2, "s")
	a, b := team[0], team[1]
	registrytest.Verdict(t, a, "s", lifecycle.Helpful)
	syncOK(t, a, Options{})
	p := registrytest.SkillPath(b, "s")
	edited := registrytest.ReadFile(t, p) + "\nmy own edit\n"
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(context.Background(), b, Options{}); !errors.Is(err, registry.ErrDirty) {
		t.Fatalf("want registry.ErrDirty, got %v", err)
	}
	if registrytest.ReadFile(t, p) != edited {
		t.Fatal("sync overwrote the user's edit")
	}
}

func TestSyncStressWritersAndSyncers(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	const writers, each = 8, 10
	team := newTeam(t, 2, "s", "u")
	a, b := team[0], team[1]
	done := make(chan error, writers+2)
	deadline := time.Now().Add(90 * time.Second)
	for w := 0; w < writers; w++ {
		go func(w int) {
			r, err := registry.Open(a.Root(), registry.Options{Roots: []string{"skills"}, LockTimeout: time.Minute})
			if err != nil {
				done <- err
				return
			}
			skill := []string{"s", "u"}[w%2]
			for i := 0; i < each; i++ {
				if _, _, err := r.RecordVerdicts([]registry.VerdictInput{{Skill: skill, Verdict: lifecycle.Helpful}}, time.Now()); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(w)
	}
	// Meanwhile a teammate records and both sides sync.
	go func() {
		for i := 0; i < 5 && time.Now().Before(deadline); i++ {
			if _, _, err := b.RecordVerdicts([]registry.VerdictInput{{Skill: "s", Verdict: lifecycle.Harmful}}, time.Now()); err != nil {
				done <- err
				return
			}
			if _, err := Sync(context.Background(), b, Options{Attempts: 10}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	go func() {
		r, err := registry.Open(a.Root(), registry.Options{Roots: []string{"skills"}, LockTimeout: time.Minute})
		if err == nil {
			for i := 0; i < 5 && time.Now().Before(deadline); i++ {
				if _, err = Sync(context.Background(), r, Options{Attempts: 10}); err != nil {
					break
				}
			}
		}
		done <- err
	}()
	for i := 0; i < writers+2; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	syncOK(t, a, Options{})
	syncOK(t, b, Options{})
	syncOK(t, a, Options{})
	for _, r := range team {
		ids := ledgerIDSet(t, r)
		if len(ids) != writers*each+5 {
			t.Fatalf("%s: %d verdicts, want %d", r.Root(), len(ids), writers*each+5)
		}
		for id, n := range ids {
			if n != 1 {
				t.Fatalf("verdict %s appears %d times", id, n)
			}
		}
		s, err := r.Skill("s")
		if err != nil {
			t.Fatal(err)
		}
		if s.Evidence.HelpfulCount != writers*each/2 || s.Evidence.HarmfulCount != 5 {
			t.Fatalf("s: helpful %d harmful %d, want %d and 5", s.Evidence.HelpfulCount, s.Evidence.HarmfulCount, writers*each/2)
		}
		for _, c := range r.Doctor() {
			if c.Status == doctor.Fail {
				t.Fatalf("doctor: %+v", c)
			}
		}
	}
}

// A fetch or push of an older megagit, killed while go-git wrote a
// remote-tracking ref in place, left the file empty or torn; the next sync
// must not fail on it.
func TestSyncSurvivesATornRemoteRef(t *testing.T) {
	team := newTeam(t, 2, "alpha")
	a, b := team[0], team[1]
	registrytest.Verdict(t, b, "alpha", lifecycle.Helpful)
	syncOK(t, b, Options{})
	ref := filepath.Join(a.GitDir(), "refs", "remotes", "origin", "main")
	// A tag plain git is writing at that moment: its lock is no ref.
	if err := os.MkdirAll(filepath.Join(a.GitDir(), "refs", "tags"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.GitDir(), "refs", "tags", "v1.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, torn := range []string{"", "3f2a9c"} {
		if err := os.WriteFile(ref, []byte(torn), 0o644); err != nil {
			t.Fatal(err)
		}
		syncOK(t, a, Options{})
	}
	if got := ledgerIDSet(t, a); len(got) != 1 {
		t.Errorf("after syncing past torn refs, a holds %d verdicts, want 1", len(got))
	}
}

// A fetch killed while go-git wrote a pack's index leaves that .idx
// half-written without its pack; the next fetch of the same pack must not
// keep it, or git can no longer read the fetched commits.
func TestSyncSurvivesATornPackIndex(t *testing.T) {
	team := newTeam(t, 2, "alpha")
	a, b := team[0], team[1]
	registrytest.Verdict(t, b, "alpha", lifecycle.Helpful)
	syncOK(t, b, Options{})

	// Learn which pack a's next fetch writes by fetching into a copy.
	packDir := filepath.Join(a.GitDir(), "objects", "pack")
	before, _ := filepath.Glob(filepath.Join(packDir, "pack-*.idx"))
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(a.Root())); err != nil {
		t.Fatal(err)
	}
	c, err := registry.Open(cp, registry.Options{Roots: []string{"skills"}})
	if err != nil {
		t.Fatal(err)
	}
	syncOK(t, c, Options{})
	after, _ := filepath.Glob(filepath.Join(c.GitDir(), "objects", "pack", "pack-*.idx"))
	var fetched string
	for _, p := range after {
		if !slices.Contains(before, filepath.Join(packDir, filepath.Base(p))) {
			fetched = p
		}
	}
	if fetched == "" {
		t.Fatal("the fetch into the copy wrote no new pack")
	}
	whole := registrytest.ReadFile(t, fetched)
	torn := filepath.Join(packDir, filepath.Base(fetched))
	if err := os.WriteFile(torn, []byte(whole[:len(whole)/3]), 0o444); err != nil {
		t.Fatal(err)
	}

	syncOK(t, a, Options{})
	registrytest.Git(t, a, "fsck", "--no-progress")
	if got := ledgerIDSet(t, a); len(got) != 1 {
		t.Errorf("after syncing past a torn pack index, a holds %d verdicts, want 1", len(got))
	}
}
