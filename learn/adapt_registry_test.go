package learn

import (
	"reflect"
	"testing"

	"github.com/megagit/megagit/registry/ledger"
)

func TestLedgerVerdicts(t *testing.T) {
	ledgers := map[string][]ledger.Entry{
		"zeta": {{Skill: "zeta", Verdict: "HARMFUL", Source: ledger.SourceExplicit, Context: "deploy it"}},
		"alpha": {
			{Skill: "alpha", Verdict: "HELPFUL", Source: ledger.SourceExplicit, Context: "sign webhooks"},
			{Skill: "alpha", Verdict: "HELPFUL", Source: ledger.SourceExplicit, Context: "  "},                        // no context
			{Skill: "alpha", Verdict: "HELPFUL", Source: ledger.SourceImplicit, Context: "inferred"},                  // implicit
			{Skill: "alpha", Verdict: "NEUTRAL", Source: ledger.SourceExplicit, Context: "meh"},                       // neither
			{Skill: "alpha", Action: "unarchive", Verdict: "HELPFUL", Source: ledger.SourceExplicit, Context: "back"}, // an action
			{Skill: "alpha", Verdict: "HARMFUL", Source: ledger.SourceExplicit, Context: "verify JWTs"},
		},
	}
	want := []AdaptVerdict{
		{Skill: "alpha", Context: "sign webhooks", Helpful: true},
		{Skill: "alpha", Context: "verify JWTs"},
		{Skill: "zeta", Context: "deploy it"},
	}
	if got := LedgerVerdicts(ledgers); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}
