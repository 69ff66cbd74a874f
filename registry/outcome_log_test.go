package registry_test

import (
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

// An implicit outcome is never shown as a verdict: its commit subject,
// its trailer block and the log name it an outcome with its value and
// signal, next to the agent's verdict of the same session.
func TestOutcomesAreNotVerdicts(t *testing.T) {
	r := registrytest.New(t, "alpha", "beta")
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	_, h, err := r.RecordVerdicts([]registry.VerdictInput{
		{Skill: "alpha", Verdict: lifecycle.Neutral, Reason: "read it", Session: "s1"},
		{Skill: "beta", Verdict: lifecycle.Helpful, Implicit: true, Outcome: 1, Reason: "implicit exit-code: exit 0: go test ./...", Session: "s1"},
		{Skill: "alpha", Verdict: lifecycle.Neutral, Implicit: true, Outcome: 0, Reason: "implicit none: no signal", Session: "s1"},
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	msg := registrytest.Git(t, r, "log", "-1", "--format=%B", h.String())
	if want := "verdicts: 1, outcomes: 2 for session s1\n"; msg[:len(want)] != want {
		t.Errorf("subject %q, want %q", msg, want)
	}
	entries, err := r.Log("", 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		k := e.Kind + ":" + e.Skill + ":" + e.Verdict
		if e.Outcome != nil {
			k += ":" + registry.OutcomeWord(*e.Outcome, e.Reason)
		}
		kinds = append(kinds, k)
	}
	want := []string{"verdict:alpha:NEUTRAL", "outcome:beta::+1.00 (exit-code)", "outcome:alpha::+0.00 (none)"}
	for i, w := range want {
		if i >= len(kinds) || kinds[i] != w {
			t.Fatalf("log %q, want %q first", kinds, want)
		}
	}
	_, h, err = r.RecordVerdicts([]registry.VerdictInput{{Skill: "beta", Verdict: lifecycle.Harmful, Implicit: true, Outcome: -1, Reason: "implicit correction: no, that's wrong", Session: "s2"}}, now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if msg := registrytest.Git(t, r, "log", "-1", "--format=%B", h.String()); msg[:len("outcome(beta): -1.00 (correction)\n")] != "outcome(beta): -1.00 (correction)\n" {
		t.Errorf("subject of one outcome: %q", msg)
	}
}
