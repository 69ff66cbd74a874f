package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type tuneOptions struct {
	app   *app
	apply bool
	json  bool
}

func newTuneCmd(a *app) *cobra.Command {
	opts := &tuneOptions{app: a}
	cmd := &cobra.Command{
		Use:   "tune [--apply]",
		Short: "Re-fit the dynamic-K thresholds from the decision log and its verdicts (seed 000 adaptive_k)",
		Long: `tune replays every logged prompt-hook decision under other dynamic-K thresholds
and scores each set against what the session's verdicts say:

  a decision whose emitted skills got a HELPFUL tag should be kept, with K
  reaching the last helpful skill; one whose skills were all judged HARMFUL or
  NEUTRAL, or were never reported although the stop hook read the session,
  should have abstained. Decisions that abstained carry no verdicts and only
  count in the abstain/keep totals.

It proposes new thresholds only with at least 30 labelled decisions and a
strict gain in agreement; --apply writes them to .megagit/config.yaml as one
commit (dynamic_k.abs_floor, abstain_z_top1, abstain_z_ent, ambig_z_ent,
very_ambig_z_ent).`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tuneRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.apply, "apply", false, "write the proposed thresholds to .megagit/config.yaml (one commit)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

// minTuneSample is how many labelled decisions tune needs before it
// proposes anything.
const minTuneSample = 30

// tuneJSON is `tune --json`'s stable shape.
type tuneJSON struct {
	Decisions  int         `json:"decisions"`
	Replayable int         `json:"replayable"`
	Labeled    int         `json:"labeled"`
	Helpful    int         `json:"helpful"`
	Unhelpful  int         `json:"unhelpful"`
	Current    tuneSummary `json:"current"`
	Proposed   tuneSummary `json:"proposed"`
	Changed    bool        `json:"changed"`
	Why        string      `json:"why"`
	Commit     string      `json:"commit,omitempty"`
}

type tuneSummary struct {
	Thresholds thresholds `json:"thresholds"`
	Abstain    int        `json:"abstain"`
	Keep       int        `json:"keep"`
	Agreement  int        `json:"agreement"`
}

func tuneRun(opts *tuneOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	ds, err := readDecisions(e.reg)
	if err != nil {
		return err
	}
	ledgers, err := e.reg.Ledgers()
	if err != nil {
		return err
	}
	rc := rankerConfig(e.cfg)
	cases := tuneCases(e.reg, ds, ledgers)
	cur := fromProfile(rc.DynamicK)
	res := tuneJSON{Decisions: len(ds), Replayable: len(cases)}
	for _, c := range cases {
		switch c.label {
		case labelHelpful:
			res.Helpful++
		case labelUnhelpful:
			res.Unhelpful++
		}
	}
	res.Labeled = res.Helpful + res.Unhelpful
	res.Current = summarize(cases, cur, rc.DynamicK, e.cfg.Route.TopK)
	best := res.Current
	switch {
	case res.Labeled < minTuneSample:
		res.Why = fmt.Sprintf("not enough evidence: %d labelled decisions, need %d", res.Labeled, minTuneSample)
	default:
		best = search(cases, cur, rc.DynamicK, e.cfg.Route.TopK)
		if best.Agreement > res.Current.Agreement {
			res.Changed = true
			res.Why = fmt.Sprintf("agreement %d -> %d of %d labelled decisions", res.Current.Agreement, best.Agreement, res.Labeled)
		} else {
			best = res.Current
			res.Why = "no threshold set agrees better with the verdicts"
		}
	}
	res.Proposed = best
	if opts.apply && res.Changed {
		old, err := e.reg.ReadConfigFile()
		if err != nil {
			return err
		}
		t := best.Thresholds
		data, err := config.Set(old, map[string]any{
			"dynamic_k.abs_floor": t.AbsFloor, "dynamic_k.abstain_z_top1": t.AbstainZTop1,
			"dynamic_k.abstain_z_ent": t.AbstainZEnt, "dynamic_k.ambig_z_ent": t.AmbigZEnt,
			"dynamic_k.very_ambig_z_ent": t.VeryAmbigZEnt,
		})
		if err != nil {
			return err
		}
		hash, err := e.reg.CommitConfig(data, fmt.Sprintf("tune dynamic K (%s)", res.Why))
		if err != nil {
			return err
		}
		res.Commit = hash.String()
	}
	if opts.json {
		return printJSON(opts.app.out, res)
	}
	printTune(opts, res)
	return nil
}

func printTune(opts *tuneOptions, r tuneJSON) {
	w := opts.app.out
	fmt.Fprintf(w, "decisions %d, replayable %d, labelled %d (%d helpful, %d unused or harmful)\n\n",
		r.Decisions, r.Replayable, r.Labeled, r.Helpful, r.Unhelpful)
	c, p := r.Current.Thresholds, r.Proposed.Thresholds
	rows := [][]string{
		{"abs_floor", f3(c.AbsFloor), f3(p.AbsFloor)},
		{"abstain_z_top1", f3(c.AbstainZTop1), f3(p.AbstainZTop1)},
		{"abstain_z_ent", f3(c.AbstainZEnt), f3(p.AbstainZEnt)},
		{"ambig_z_ent", f3(c.AmbigZEnt), f3(p.AmbigZEnt)},
		{"very_ambig_z_ent", f3(c.VeryAmbigZEnt), f3(p.VeryAmbigZEnt)},
		{"abstain (of replayable)", fmt.Sprint(r.Current.Abstain), fmt.Sprint(r.Proposed.Abstain)},
		{"keep (of replayable)", fmt.Sprint(r.Current.Keep), fmt.Sprint(r.Proposed.Keep)},
		{"agreement (of labelled)", fmt.Sprint(r.Current.Agreement), fmt.Sprint(r.Proposed.Agreement)},
	}
	_ = printTable(w, []string{"THRESHOLD", "CURRENT", "PROPOSED"}, rows)
	switch {
	case !r.Changed:
		fmt.Fprintf(opts.app.errOut, "megagit: thresholds unchanged: %s\n", r.Why)
	case r.Commit != "":
		fmt.Fprintf(opts.app.errOut, "megagit: applied: %s (commit %s)\n", r.Why, r.Commit[:12])
	default:
		fmt.Fprintf(opts.app.errOut, "megagit: %s; run `megagit tune --apply` to write them\n", r.Why)
	}
}

func f3(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".")
}

// Labels of a replayable decision.
const (
	labelNone = iota
	labelHelpful
	labelUnhelpful
)

// tuneCase is one logged decision reduced to what a replay needs.
type tuneCase struct {
	top1, zTop1, zEnt float64
	elbow, n          int
	label             int
	needK             int // helpful decisions: K must reach the last helpful skill
}

// tuneCases keeps decisions dynamic K decided (not no-match, fixed or the
// lexical fast path) and labels them from the session's explicit verdicts.
func tuneCases(reg *registry.Registry, ds []hook.Decision, ledgers map[string][]registry.Entry) []tuneCase {
	var out []tuneCase
	stopped := map[string]bool{}
	for _, d := range ds {
		if len(d.Scores) == 0 || !dynamicReason(d.Reason) {
			continue
		}
		c := tuneCase{top1: d.Scores[0], zTop1: d.ZTop1, zEnt: d.ZEnt, elbow: elbowOf(d.Scores), n: d.Candidates}
		if len(d.Skills) > 0 && d.Session != "" && !d.Shadow {
			v := sessionVerdicts(d, ledgers)
			judged := 0
			for i, s := range d.Skills {
				for _, word := range v[s.Name] {
					switch word {
					case "HELPFUL":
						c.label, c.needK = labelHelpful, i+1
					case "HARMFUL", "NEUTRAL":
						judged++
					}
				}
			}
			if c.label == labelNone {
				s, ok := stopped[d.Session]
				if !ok {
					if sess, err := loadSession(reg, d.Session); err == nil {
						s = sess.Stopped
					}
					stopped[d.Session] = s
				}
				if judged > 0 || s {
					c.label = labelUnhelpful
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func dynamicReason(r string) bool {
	switch r {
	case "abs-floor", "uniform-null", "very-ambiguous", "ambiguous":
		return true
	}
	return strings.HasPrefix(r, "gap-cut@")
}

// elbowOf is the index of the largest gap among the top-9 scores, as in
// ranker.DynamicK.Decide.
func elbowOf(s []float64) int {
	s = s[:min(len(s), 9)]
	best, at := math.Inf(-1), 0
	for i := 0; i+1 < len(s); i++ {
		if g := s[i] - s[i+1]; g > best {
			best, at = g, i
		}
	}
	return at
}

// thresholds are the five dynamic-K gates tune fits.
type thresholds struct {
	AbsFloor      float64 `json:"abs_floor"`
	AbstainZTop1  float64 `json:"abstain_z_top1"`
	AbstainZEnt   float64 `json:"abstain_z_ent"`
	AmbigZEnt     float64 `json:"ambig_z_ent"`
	VeryAmbigZEnt float64 `json:"very_ambig_z_ent"`
}

func fromProfile(p ranker.DynamicK) thresholds {
	return thresholds{p.AbsFloor, p.AbstainZTop1, p.AbstainZEnt, p.AmbigZEnt, p.VeryAmbigZEnt}
}

// replayK is ranker.DynamicK's branch order on precomputed statistics
// (tune_test checks it agrees with Decide), capped like Rank caps it.
func replayK(t thresholds, p ranker.DynamicK, c tuneCase, topK int) int {
	var k int
	switch {
	case t.AbsFloor > 0 && c.top1 < t.AbsFloor:
		k = 0
	case c.zTop1 < t.AbstainZTop1 && c.zEnt > t.AbstainZEnt:
		k = 0
	case c.zEnt > t.VeryAmbigZEnt:
		k = p.KVeryAmbig
	case c.zEnt > t.AmbigZEnt:
		k = p.KAmbig
	default:
		k = min(max(c.elbow+1, p.KMin), p.KMax)
	}
	k = min(k, c.n)
	if topK > 0 {
		k = min(k, topK)
	}
	return k
}

// summarize scores one threshold set: abstain/keep over every replayable
// decision, agreement over the labelled ones.
func summarize(cases []tuneCase, t thresholds, p ranker.DynamicK, topK int) tuneSummary {
	s := tuneSummary{Thresholds: t}
	for _, c := range cases {
		k := replayK(t, p, c, topK)
		if k == 0 {
			s.Abstain++
		} else {
			s.Keep++
		}
		switch {
		case c.label == labelHelpful && k >= c.needK:
			s.Agreement++
		case c.label == labelUnhelpful && k == 0:
			s.Agreement++
		}
	}
	return s
}

// search tries a grid of abstain gates, then of ambiguity gates, and keeps
// the best agreement; ties go to the set closest to the current one, so
// the thresholds move only as far as the evidence requires.
func search(cases []tuneCase, cur thresholds, p ranker.DynamicK, topK int) tuneSummary {
	best := summarize(cases, cur, p, topK)
	bestDist := 0.0
	try := func(t thresholds) {
		s := summarize(cases, t, p, topK)
		d := dist(t, cur)
		if s.Agreement > best.Agreement || (s.Agreement == best.Agreement && d < bestDist) {
			best, bestDist = s, d
		}
	}
	for _, floor := range append([]float64{cur.AbsFloor}, steps(0.05, 0.40, 0.025)...) {
		for _, zt := range append([]float64{cur.AbstainZTop1}, steps(1.0, 3.0, 0.1)...) {
			for _, ze := range append([]float64{cur.AbstainZEnt}, steps(1.0, 2.3, 0.05)...) {
				t := cur
				t.AbsFloor, t.AbstainZTop1, t.AbstainZEnt = floor, zt, ze
				try(t)
			}
		}
	}
	base := best.Thresholds
	for _, amb := range steps(1.3, 2.2, 0.1) {
		for _, very := range steps(amb, 2.4, 0.1) {
			t := base
			t.AmbigZEnt, t.VeryAmbigZEnt = amb, very
			try(t)
		}
	}
	return best
}

func steps(from, to, by float64) []float64 {
	var out []float64
	for i := 0; ; i++ {
		x := math.Round((from+float64(i)*by)*1000) / 1000
		if x > to+1e-9 {
			return out
		}
		out = append(out, x)
	}
}

func dist(a, b thresholds) float64 {
	return math.Abs(a.AbsFloor-b.AbsFloor)*10 + math.Abs(a.AbstainZTop1-b.AbstainZTop1) +
		math.Abs(a.AbstainZEnt-b.AbstainZEnt) + math.Abs(a.AmbigZEnt-b.AmbigZEnt) + math.Abs(a.VeryAmbigZEnt-b.VeryAmbigZEnt)
}
