package stop

import (
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/local"
)

// TuneCases keeps the decisions dynamic K decided (not no-match, fixed or
// the lexical fast path) and labels them from what the stop hook left:
// helpful at the rank of a skill judged HELPFUL in the session, unhelpful
// when a skill was judged otherwise or the stop hook read the session and
// found no help. ranker.Tune re-fits K's thresholds from them.
func TuneCases(dir local.Dir, ds []hook.Decision, ledgers map[string][]registry.Entry) []ranker.TuneCase {
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
					if sess, err := hook.LoadSession(dir, d.Session); err == nil {
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
