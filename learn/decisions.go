package learn

import (
	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
)

// SessionVerdicts joins a decision with the ledger: the verdicts its
// emitted skills got in the same session, at or after the decision, per
// skill ("HELPFUL", "outcome +1.00 (exit-code)", ...).
func SessionVerdicts(d decisionlog.Entry, ledgers map[string][]ledger.Entry) map[string][]string {
	out := map[string][]string{}
	if d.Session == "" {
		return out
	}
	session, _ := safetext.Session.Clean(d.Session) // as the ledger keeps it
	for _, s := range d.Skills {
		for _, en := range ledgers[s.Name] {
			if en.Session != session || en.Action != "" || en.At < d.Time[:min(len(d.Time), 19)] {
				continue
			}
			word := en.Verdict
			if en.Source == ledger.SourceImplicit {
				word = "outcome " + registry.OutcomeWord(en.Outcome, en.Reason)
			}
			out[s.Name] = append(out[s.Name], word)
		}
	}
	return out
}

// Decision is a logged decision with the verdicts its skills got later in
// the same session, per skill (SessionVerdicts).
type Decision struct {
	decisionlog.Entry
	Verdicts map[string][]string `json:"verdicts"`
}

// WithVerdicts is each decision joined with the ledger (SessionVerdicts).
func WithVerdicts(ds []decisionlog.Entry, ledgers map[string][]ledger.Entry) []Decision {
	out := make([]Decision, len(ds))
	for i, d := range ds {
		out[i] = Decision{Entry: d, Verdicts: SessionVerdicts(d, ledgers)}
	}
	return out
}
