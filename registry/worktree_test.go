package registry_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

// A verdict recorded from a linked worktree (git worktree add) moves the
// branch git reads: the shared ref in the main .git folder, not a file
// under .git/worktrees/<name>/refs that git never looks at. Log, doctor
// and plain git all see it, and gc keeps it.
func TestVerdictFromLinkedWorktreeMovesTheSharedBranch(t *testing.T) {
	main := registrytest.New(t, "alpha")
	wt := linkedWorktree(t, main)
	_, hash, err := wt.RecordVerdicts([]registry.VerdictInput{{Skill: "alpha", Verdict: lifecycle.Helpful, Reason: "from the worktree"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(registrytest.Git(t, main, "rev-parse", "feature")); got != hash.String() {
		t.Fatalf("git sees feature at %s, megagit committed %s", got, hash)
	}
	if got := strings.TrimSpace(registrytest.Git(t, wt, "rev-parse", "HEAD")); got != hash.String() {
		t.Fatalf("the worktree's HEAD is at %s, megagit committed %s", got, hash)
	}
	if got := registrytest.Git(t, wt, "status", "--porcelain"); got != "" {
		t.Fatalf("worktree not clean after the verdict:\n%s", got)
	}
	log, err := wt.Log("alpha", 0)
	if err != nil || len(log) == 0 || log[0].Reason != "from the worktree" {
		t.Fatalf("log from the worktree: %+v, %v", log, err)
	}
	// A second verdict builds on the first (the branch was really moved).
	registrytest.Verdict(t, wt, "alpha", lifecycle.Neutral)
	if n := strings.Count(registrytest.Git(t, main, "log", "--format=%H", "feature", "--grep", "Megagit-Verdict"), "\n"); n != 2 {
		t.Fatalf("want 2 verdict commits on feature, got %d", n)
	}
	for _, c := range wt.Doctor() {
		if c.Status == doctor.Fail {
			t.Errorf("doctor in the worktree: %+v", c)
		}
	}
	registrytest.Git(t, main, "gc", "-q", "--prune=now")
	registrytest.Git(t, main, "fsck", "--strict", "--no-progress")
	if out := registrytest.Git(t, main, "log", "-1", "--format=%B", "feature"); !strings.Contains(out, "Megagit-Verdict: NEUTRAL") {
		t.Fatalf("the last verdict is gone from feature after gc:\n%s", out)
	}
}

// linkedWorktree adds a worktree of main on a new branch "feature" (git
// worktree add) and opens the registry in it.
func linkedWorktree(t *testing.T, main *registry.Registry) *registry.Registry {
	t.Helper()
	wtDir := filepath.Join(t.TempDir(), "wt")
	registrytest.Git(t, main, "worktree", "add", "-q", "-b", "feature", wtDir)
	wt, err := registry.Open(wtDir, registry.Options{Roots: []string{"skills"}})
	if err != nil {
		t.Fatal(err)
	}
	return wt
}
