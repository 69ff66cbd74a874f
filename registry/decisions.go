package registry

import (
	"fmt"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
)

// SessionVerdicts joins a decision with the ledger: the verdicts its
// emitted skills got in the same session, at or after the decision, per
// skill ("HELPFUL", "implicit +0.10", ...).
func SessionVerdicts(d hook.Decision, ledgers map[string][]Entry) map[string][]string {
	out := map[string][]string{}
	if d.Session == "" {
		return out
	}
	for _, s := range d.Skills {
		for _, en := range ledgers[s.Name] {
			if en.Session != d.Session || en.Action != "" || en.At < d.Time[:min(len(d.Time), 19)] {
				continue
			}
			word := en.Verdict
			if en.Source == SourceImplicit {
				word = fmt.Sprintf("implicit %+.2f", en.Outcome)
			}
			out[s.Name] = append(out[s.Name], word)
		}
	}
	return out
}

// TuneCases keeps the decisions dynamic K decided (not no-match, fixed or
// the lexical fast path) and labels them from the session's explicit
// verdicts, so ranker.Tune can re-fit K's thresholds: helpful at the rank
// of the skill that helped, unhelpful when a skill was judged otherwise or
// the session stopped without any helping.
func (r *Registry) TuneCases(ds []hook.Decision, ledgers map[string][]Entry) []ranker.TuneCase {
	var out []ranker.TuneCase
	stopped := map[string]bool{}
	for _, d := range ds {
		if len(d.Scores) == 0 || !ranker.KReason(d.Reason).Dynamic() {
			continue
		}
		c := ranker.TuneCase{Scores: d.Scores, ZTop1: d.ZTop1, ZEnt: d.ZEnt, Candidates: d.Candidates}
		if len(d.Skills) > 0 && d.Session != "" && !d.Shadow {
			v := SessionVerdicts(d, ledgers)
			judged := 0
			for i, s := range d.Skills {
				for _, word := range v[s.Name] {
					switch word {
					case "HELPFUL":
						c.Label, c.NeedK = ranker.LabelHelpful, i+1
					case "HARMFUL", "NEUTRAL":
						judged++
					}
				}
			}
			if c.Label == ranker.LabelNone {
				s, ok := stopped[d.Session]
				if !ok {
					if sess, err := hook.LoadSession(r.Local(), d.Session); err == nil {
						s = sess.Stopped
					}
					stopped[d.Session] = s
				}
				if judged > 0 || s {
					c.Label = ranker.LabelUnhelpful
				}
			}
		}
		out = append(out, c)
	}
	return out
}
