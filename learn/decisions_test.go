package learn_test

import (
	"reflect"
	"testing"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/learn"
	"github.com/megagit/megagit/registry/ledger"
)

func TestSessionVerdicts(t *testing.T) {
	d := decisionlog.Entry{Time: "2025-03-01T10:00:00.123Z", Session: "s1",
		Skills: []decisionlog.Skill{{Name: "a"}, {Name: "b"}}}
	ledgers := map[string][]ledger.Entry{
		"a": {
			{Skill: "a", Verdict: "HELPFUL", Source: ledger.SourceExplicit, Session: "s1", At: "2025-03-01T10:00:05Z"},
			{Skill: "a", Verdict: "HARMFUL", Source: ledger.SourceExplicit, Session: "s1", At: "2025-03-01T09:59:00Z"}, // before
			{Skill: "a", Verdict: "HARMFUL", Source: ledger.SourceExplicit, Session: "s2", At: "2025-03-01T10:00:05Z"}, // other session
			{Skill: "a", Action: "unarchive", Source: ledger.SourceExplicit, Session: "s1", At: "2025-03-01T10:00:05Z"},
		},
		"b": {{Skill: "b", Verdict: "NEUTRAL", Source: ledger.SourceImplicit, Outcome: 0.1, Session: "s1", At: "2025-03-01T10:01:00Z"}},
	}
	want := map[string][]string{"a": {"HELPFUL"}, "b": {"outcome +0.10"}}
	if got := learn.SessionVerdicts(d, ledgers); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := learn.SessionVerdicts(decisionlog.Entry{Skills: d.Skills, Time: d.Time}, ledgers); len(got) != 0 {
		t.Fatalf("no session: %v", got)
	}
}
