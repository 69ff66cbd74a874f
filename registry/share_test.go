package registry_test

import (
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/registrytest"
)

// A shared use is a ledger line of its own kind: sharing it twice adds it
// once, it moves no count or status, and a use line without its prompt is
// refused as a ledger line.
func TestShareUsesOnceAndNoVerdict(t *testing.T) {
	r := registrytest.New(t, "alpha")
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	before, err := r.Skill("alpha")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	uses := []registry.Use{
		{Skill: "alpha", Prompt: "why do my tests fail only in CI", Agent: "claude", Session: "s1", At: at, Key: "k1"},
		{Skill: "alpha", Prompt: "flaky test on the build server", Agent: "codex", Session: "s2", At: at.Add(time.Hour), Key: "k2"},
	}
	added, hash, err := r.ShareUses(uses)
	if err != nil || len(added) != 2 || hash.IsZero() {
		t.Fatalf("ShareUses: %d added, %v, %v", len(added), hash, err)
	}
	again, hash2, err := r.ShareUses(uses)
	if err != nil || len(again) != 0 || !hash2.IsZero() {
		t.Fatalf("sharing again: %d added, commit %v, %v; want nothing", len(again), hash2, err)
	}
	if registry.UseEntry(uses[0]).ID != added[0].ID {
		t.Fatal("a use's ledger id is not the same each time it is made")
	}
	after, err := r.Skill("alpha")
	if err != nil {
		t.Fatal(err)
	}
	if after.Evidence.HelpfulCount != before.Evidence.HelpfulCount || after.Evidence.Status != before.Evidence.Status ||
		strings.Join(after.Evidence.HelpfulContexts, "|") != strings.Join(before.Evidence.HelpfulContexts, "|") {
		t.Fatalf("sharing moved the evidence: %+v, was %+v", after.Evidence, before.Evidence)
	}
	entries, err := r.Ledger("alpha")
	if err != nil {
		t.Fatal(err)
	}
	if replayed := ledger.Replay(before.Evidence, entries); replayed.HelpfulCount != 1 {
		t.Fatalf("replaying the ledger counts %d helpful verdicts, want 1", replayed.HelpfulCount)
	}
	bad := `{"id":"01M8TQFW4PQ1FC15ZRMZZXJAST","skill":"alpha","action":"use","source":"implicit","outcome":0,"at":"2026-11-30T09:00:00Z"}`
	if _, probs := ledger.Parse(ledger.Path("alpha"), []byte(bad)); len(probs) != 1 || !strings.Contains(probs[0], "field context") {
		t.Fatalf("a use without its prompt: %v, want a problem naming field context", probs)
	}
}
