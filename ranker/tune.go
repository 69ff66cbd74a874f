package ranker

import (
	"fmt"
	"math"
)

// Re-fitting dynamic K from use: logged decisions are
// replayed through Decide's own branches under other thresholds, and each
// threshold set is scored against what the sessions' verdicts say.

// Label is what a logged decision's verdicts say it should have done.
type Label int

// Labels of a replayable decision.
const (
	// LabelNone: no verdict says; the decision only counts in the
	// abstain/keep totals.
	LabelNone Label = iota
	// LabelHelpful: an emitted skill was judged HELPFUL, so the decision should
	// have kept K at least up to it.
	LabelHelpful
	// LabelUnhelpful: every emitted skill was judged HARMFUL or NEUTRAL, or none
	// was reported although the session was read: it should have abstained.
	LabelUnhelpful
)

// TuneCase is one logged dynamic-K decision, reduced to what a replay needs.
type TuneCase struct {
	// Scores are the logged top final scores, highest first (at least one);
	// ZTop1 and ZEnt the logged statistics of the whole ranking.
	Scores      []float64
	ZTop1, ZEnt float64
	// Candidates is how many skills were ranked: K never exceeds it.
	Candidates int
	Label      Label
	// NeedK is, for a LabelHelpful decision, the position (from 1) of the last
	// helpful skill: the least K that agrees with the verdicts.
	NeedK int
}

// Thresholds are the five dynamic-K gates tune fits; the K bounds stay.
type Thresholds struct {
	AbsFloor      float64 `json:"abs_floor"`
	AbstainZTop1  float64 `json:"abstain_z_top1"`
	AbstainZEnt   float64 `json:"abstain_z_ent"`
	AmbigZEnt     float64 `json:"ambig_z_ent"`
	VeryAmbigZEnt float64 `json:"very_ambig_z_ent"`
}

// ThresholdsOf is p's five gates.
func ThresholdsOf(p DynamicK) Thresholds {
	return Thresholds{p.AbsFloor, p.AbstainZTop1, p.AbstainZEnt, p.AmbigZEnt, p.VeryAmbigZEnt}
}

// on is p with t's gates.
func (t Thresholds) on(p DynamicK) DynamicK {
	p.AbsFloor, p.AbstainZTop1, p.AbstainZEnt = t.AbsFloor, t.AbstainZTop1, t.AbstainZEnt
	p.AmbigZEnt, p.VeryAmbigZEnt = t.AmbigZEnt, t.VeryAmbigZEnt
	return p
}

// TuneSummary scores one threshold set: abstain/keep over every replayable
// decision, agreement over the labelled ones.
type TuneSummary struct {
	Thresholds Thresholds `json:"thresholds"`
	Abstain    int        `json:"abstain"`
	Keep       int        `json:"keep"`
	Agreement  int        `json:"agreement"`
}

// Tuning is what Tune found: the evidence, the current and the proposed
// thresholds, and why they differ or not.
type Tuning struct {
	Labeled   int         `json:"labeled"`
	Helpful   int         `json:"helpful"`
	Unhelpful int         `json:"unhelpful"`
	Current   TuneSummary `json:"current"`
	Proposed  TuneSummary `json:"proposed"`
	Changed   bool        `json:"changed"`
	Why       string      `json:"why"`
}

// MinTuneSample is how many labelled decisions Tune needs before it
// proposes anything: fewer would fit the thresholds to noise.
const MinTuneSample = 30

// Tune re-fits p's thresholds to the cases, replayed with Rank's TopK cap
// (<= 0: none). It proposes a change only with MinTuneSample labelled
// cases and a strict gain in agreement.
func Tune(cases []TuneCase, p DynamicK, topK int) Tuning {
	var res Tuning
	for _, c := range cases {
		switch c.Label {
		case LabelHelpful:
			res.Helpful++
		case LabelUnhelpful:
			res.Unhelpful++
		}
	}
	res.Labeled = res.Helpful + res.Unhelpful
	rc := prepare(cases)
	res.Current = summarize(rc, p, topK)
	res.Proposed = res.Current
	if res.Labeled < MinTuneSample {
		res.Why = fmt.Sprintf("not enough evidence: %d labelled decisions, need %d", res.Labeled, MinTuneSample)
		return res
	}
	best := search(rc, p, topK)
	if best.Agreement <= res.Current.Agreement {
		res.Why = "no threshold set agrees better with the verdicts"
		return res
	}
	res.Proposed, res.Changed = best, true
	res.Why = fmt.Sprintf("agreement %d -> %d of %d labelled decisions", res.Current.Agreement, best.Agreement, res.Labeled)
	return res
}

// replayCase is a TuneCase with its elbow found once: the search replays
// every case some ten thousand times.
type replayCase struct {
	*TuneCase
	elbow int
}

func prepare(cases []TuneCase) []replayCase {
	out := make([]replayCase, len(cases))
	for i := range cases {
		out[i] = replayCase{&cases[i], elbow(cases[i].Scores)}
	}
	return out
}

// replay is the K p gives c, capped as Decide and Rank cap it.
func (p DynamicK) replay(c replayCase, topK int) int {
	k, _ := p.decide(c.Scores[0], c.ZTop1, c.ZEnt, c.elbow)
	k = min(k, c.Candidates)
	if topK > 0 {
		k = min(k, topK)
	}
	return k
}

// summarize scores p's thresholds on the cases.
func summarize(cases []replayCase, p DynamicK, topK int) TuneSummary {
	s := TuneSummary{Thresholds: ThresholdsOf(p)}
	for _, c := range cases {
		k := p.replay(c, topK)
		if k == 0 {
			s.Abstain++
		} else {
			s.Keep++
		}
		switch {
		case c.Label == LabelHelpful && k >= c.NeedK:
			s.Agreement++
		case c.Label == LabelUnhelpful && k == 0:
			s.Agreement++
		}
	}
	return s
}

// search tries a grid of abstain gates, then of ambiguity gates, and keeps
// the best agreement; ties go to the set closest to p's, so the thresholds
// move only as far as the evidence requires.
func search(cases []replayCase, p DynamicK, topK int) TuneSummary {
	cur := ThresholdsOf(p)
	best := summarize(cases, p, topK)
	bestDist := 0.0
	try := func(t Thresholds) {
		s := summarize(cases, t.on(p), topK)
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

// steps is from, from+by, ... up to to, each rounded to 3 decimals.
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

// dist is how far apart two threshold sets are; the floor, on a ten times
// smaller scale than the z-gates, counts ten times.
func dist(a, b Thresholds) float64 {
	return math.Abs(a.AbsFloor-b.AbsFloor)*10 + math.Abs(a.AbstainZTop1-b.AbstainZTop1) +
		math.Abs(a.AbstainZEnt-b.AbstainZEnt) + math.Abs(a.AmbigZEnt-b.AmbigZEnt) + math.Abs(a.VeryAmbigZEnt-b.VeryAmbigZEnt)
}
