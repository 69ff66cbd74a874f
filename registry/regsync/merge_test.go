package regsync

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/registrytest"
)

func TestMergeContexts(t *testing.T) {
	// Nobody curated: the merged ledger's last three.
	got := mergeContexts([]string{"a"}, []string{"b"}, []string{"a"}, []string{"b"}, []string{"a", "b"})
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("derived: %v", got)
	}
	// A hand-curated side: ours, then theirs we lack, capped at three.
	got = mergeContexts([]string{"mine", "x"}, []string{"x", "y", "z"}, nil, []string{"x", "y", "z"}, nil)
	if strings.Join(got, ",") != "x,y,z" {
		t.Fatalf("curated: %v", got)
	}
	// A teammate's hand-written contexts are cleaned as a verdict's are.
	got = mergeContexts([]string{"mine"}, []string{"their\x1b[2J\nline", "\x00"}, nil, nil, nil)
	if strings.Join(got, "|") != "mine|their[2J line" {
		t.Fatalf("cleaned: %q", got)
	}
}

// A body edited on one side and verdicts on both: the edit is kept and
// mega_meta is a replay of the merged ledger.
func TestSyncBodyEditOneSide(t *testing.T) {
	team := newTeam(t, 2, "s")
	a, b := team[0], team[1]
	p := registrytest.SkillPath(a, "s")
	if err := os.WriteFile(p, []byte(registrytest.ReadFile(t, p)+"\nUse it carefully.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	registrytest.Git(t, a, "commit", "-qam", "edit s")
	registrytest.Verdict(t, a, "s", lifecycle.Harmful)
	syncOK(t, a, Options{})
	registrytest.Verdict(t, b, "s", lifecycle.Helpful)
	registrytest.Verdict(t, b, "s", lifecycle.Harmful)
	res := syncOK(t, b, Options{})
	if res.Action != SyncMerge {
		t.Fatalf("action %s", res.Action)
	}
	s, err := b.Skill("s")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.File.Body(), "Use it carefully.") {
		t.Fatal("lost the body edit")
	}
	ledgers, err := b.Ledgers()
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Replay(lifecycle.ColdStart(), ledgers["s"])
	if s.Evidence.HelpfulCount != 1 || s.Evidence.HarmfulCount != 2 || s.Evidence.ConsecutiveHarmful != want.ConsecutiveHarmful || s.Evidence.Status != want.Status {
		t.Fatalf("evidence %+v, want a replay %+v", s.Evidence, want)
	}
	if _, err := Sync(context.Background(), a, Options{}); err != nil {
		t.Fatal(err)
	}
	if registrytest.ReadFile(t, registrytest.SkillPath(a, "s")) != registrytest.ReadFile(t, registrytest.SkillPath(b, "s")) {
		t.Fatal("the two clones disagree after syncing")
	}
}
