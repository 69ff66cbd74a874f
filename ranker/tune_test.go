package ranker

import (
	"reflect"
	"testing"
)

// The worked examples of dynamic K (TestDynamicKWorkedExamples), logged as
// the prompt hook logs them and replayed: a replay decides what Decide
// decided.
func TestReplayWorkedExamples(t *testing.T) {
	for _, scores := range [][]float64{
		{0.78, 0.62, 0.58, 0.41, 0.38, 0.36, 0.35, 0.34, 0.33, 0.32}, // clean peak: gap-cut@2
		{0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30}, // null prompt: uniform-null
		{0.82, 0.41, 0.40, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33}, // overwhelming leader: gap-cut@0
	} {
		for _, p := range []DynamicK{DefaultDynamicK(), ProfileFor(TierWeak), LexicalProfile()} {
			d := p.Decide(scores)
			c := TuneCase{Scores: scores, ZTop1: d.ZTop1, ZEnt: d.ZEnt, Candidates: len(scores)}
			if got := p.replay(prepare([]TuneCase{c})[0], 0); got != d.K {
				t.Errorf("%v with %+v: replay K = %d, Decide = %+v", scores, p, got, d)
			}
		}
	}
}

func TestReplay(t *testing.T) {
	peak := []float64{0.5, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02} // elbow 0
	flat := []float64{0.12, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04}
	p := LexicalProfile() // medium tier: k_min 3, k_max 15, ambiguous 7, very 12; floor 0.10
	tests := []struct {
		name string
		p    DynamicK
		c    TuneCase
		topK int
		want int
	}{
		{"gap cut, k_min", p, TuneCase{Scores: peak, ZTop1: 3, ZEnt: 1, Candidates: 8}, 0, 3},
		{"capped by the candidates", p, TuneCase{Scores: peak, ZTop1: 3, ZEnt: 1, Candidates: 2}, 0, 2},
		{"capped by top_k", p, TuneCase{Scores: peak, ZTop1: 3, ZEnt: 1, Candidates: 8}, 1, 1},
		{"below the floor", p, TuneCase{Scores: []float64{0.09}, ZTop1: 3, ZEnt: 1, Candidates: 8}, 0, 0},
		{"no floor: k_min, not the logged scores", DefaultDynamicK(), TuneCase{Scores: []float64{0.09}, ZTop1: 3, ZEnt: 1, Candidates: 8}, 0, 2},
		{"uniform null", p, TuneCase{Scores: flat, ZTop1: 1.5, ZEnt: 1.9, Candidates: 8}, 0, 0},
		{"ambiguous", p, TuneCase{Scores: flat, ZTop1: 1.9, ZEnt: 1.8, Candidates: 20}, 0, 7},
		{"very ambiguous", p, TuneCase{Scores: flat, ZTop1: 1.9, ZEnt: 2.2, Candidates: 20}, 0, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.replay(prepare([]TuneCase{tt.c})[0], tt.topK); got != tt.want {
				t.Errorf("replay K = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSummarizeAgreement(t *testing.T) {
	peak := []float64{0.5, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02}
	keep := TuneCase{Scores: peak, ZTop1: 3, ZEnt: 1, Candidates: 8} // K 3
	abstain := TuneCase{Scores: []float64{0.05}, ZTop1: 3, ZEnt: 1, Candidates: 8}
	with := func(c TuneCase, l Label, needK int) TuneCase { c.Label, c.NeedK = l, needK; return c }
	tests := []struct {
		name  string
		cases []TuneCase
		want  TuneSummary
	}{
		{"helpful within K", []TuneCase{with(keep, LabelHelpful, 3)}, TuneSummary{Keep: 1, Agreement: 1}},
		{"helpful beyond K", []TuneCase{with(keep, LabelHelpful, 4)}, TuneSummary{Keep: 1}},
		{"helpful but abstained", []TuneCase{with(abstain, LabelHelpful, 1)}, TuneSummary{Abstain: 1}},
		{"unhelpful and abstained", []TuneCase{with(abstain, LabelUnhelpful, 0)}, TuneSummary{Abstain: 1, Agreement: 1}},
		{"unhelpful but kept", []TuneCase{with(keep, LabelUnhelpful, 0)}, TuneSummary{Keep: 1}},
		{"unlabelled: counted, never agreeing", []TuneCase{keep, abstain}, TuneSummary{Abstain: 1, Keep: 1}},
	}
	p := LexicalProfile()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Thresholds = ThresholdsOf(p)
			if got := summarize(prepare(tt.cases), p, 0); got != tt.want {
				t.Errorf("summary = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// tuneLog is the log of testscript hook_tune: n sessions where the strong,
// peaked decision's skill was HELPFUL and n where the weak, flat one's
// was HARMFUL, each replayable under the lexical profile.
func tuneLog(n int) []TuneCase {
	var out []TuneCase
	for range n {
		out = append(out,
			TuneCase{Scores: []float64{0.5, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02}, ZTop1: 3, ZEnt: 1, Candidates: 8, Label: LabelHelpful, NeedK: 1},
			TuneCase{Scores: []float64{0.12, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04}, ZTop1: 1.5, ZEnt: 1.6, Candidates: 8, Label: LabelUnhelpful})
	}
	return out
}

func TestTune(t *testing.T) {
	lexical := LexicalProfile()
	cur := ThresholdsOf(lexical)
	fitted := cur
	fitted.AbsFloor = 0.125 // the smallest floor on the grid above the weak decisions' 0.12
	tuned := fitted.on(lexical)
	unlabelled := append(tuneLog(20), TuneCase{Scores: []float64{0.05}, ZTop1: 3, ZEnt: 1, Candidates: 3})
	tests := []struct {
		name  string
		cases []TuneCase
		p     DynamicK
		want  Tuning
	}{
		{"too few labelled decisions", tuneLog(10), lexical, Tuning{
			Labeled: 20, Helpful: 10, Unhelpful: 10,
			Current:  TuneSummary{Thresholds: cur, Keep: 20, Agreement: 10},
			Proposed: TuneSummary{Thresholds: cur, Keep: 20, Agreement: 10},
			Why:      "not enough evidence: 20 labelled decisions, need 30"}},
		{"a floor agrees with every verdict", tuneLog(20), lexical, Tuning{
			Labeled: 40, Helpful: 20, Unhelpful: 20,
			Current:  TuneSummary{Thresholds: cur, Keep: 40, Agreement: 20},
			Proposed: TuneSummary{Thresholds: fitted, Abstain: 20, Keep: 20, Agreement: 40},
			Changed:  true, Why: "agreement 20 -> 40 of 40 labelled decisions"}},
		{"unlabelled decisions count in abstain and keep only", unlabelled, lexical, Tuning{
			Labeled: 40, Helpful: 20, Unhelpful: 20,
			Current:  TuneSummary{Thresholds: cur, Abstain: 1, Keep: 40, Agreement: 20},
			Proposed: TuneSummary{Thresholds: fitted, Abstain: 21, Keep: 20, Agreement: 40},
			Changed:  true, Why: "agreement 20 -> 40 of 40 labelled decisions"}},
		{"already fitted: nothing better", tuneLog(20), tuned, Tuning{
			Labeled: 40, Helpful: 20, Unhelpful: 20,
			Current:  TuneSummary{Thresholds: fitted, Abstain: 20, Keep: 20, Agreement: 40},
			Proposed: TuneSummary{Thresholds: fitted, Abstain: 20, Keep: 20, Agreement: 40},
			Why:      "no threshold set agrees better with the verdicts"}},
		{"no decisions", nil, lexical, Tuning{
			Current:  TuneSummary{Thresholds: cur},
			Proposed: TuneSummary{Thresholds: cur},
			Why:      "not enough evidence: 0 labelled decisions, need 30"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tune(tt.cases, tt.p, 10); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tune =\n%+v, want\n%+v", got, tt.want)
			}
		})
	}
}

// Helpful decisions of an ambiguous log need a wider K: the search moves
// the ambiguity gates, and among the sets that agree as well keeps the one
// closest to the current thresholds.
func TestTuneWidensAmbiguousK(t *testing.T) {
	p := DefaultDynamicK() // k_min 2, ambiguous 5 at z_ent > 1.7, very 10 at > 2.1
	var cases []TuneCase
	for range 30 {
		// z_ent 1.65: a gap cut (K 2), but the helpful skill was fourth.
		cases = append(cases, TuneCase{Scores: []float64{0.6, 0.3, 0.29, 0.28, 0.27}, ZTop1: 2.5, ZEnt: 1.65,
			Candidates: 10, Label: LabelHelpful, NeedK: 4})
	}
	got := Tune(cases, p, 0)
	want := ThresholdsOf(p)
	want.AmbigZEnt = 1.6 // the nearest grid value under 1.65; very-ambiguous stays above it
	if !got.Changed || got.Proposed.Agreement != 30 || got.Proposed.Thresholds.AmbigZEnt != want.AmbigZEnt {
		t.Fatalf("Tune = %+v, want ambig_z_ent %v and agreement 30", got, want.AmbigZEnt)
	}
	if d := dist(got.Proposed.Thresholds, ThresholdsOf(p)); d > 0.11+1e-9 {
		t.Errorf("proposed %+v moved %v from the current thresholds, want the closest agreeing set", got.Proposed.Thresholds, d)
	}
}

func TestSteps(t *testing.T) {
	tests := []struct {
		from, to, by float64
		want         []float64
	}{
		{0.05, 0.15, 0.025, []float64{0.05, 0.075, 0.1, 0.125, 0.15}},
		{1.3, 1.6, 0.1, []float64{1.3, 1.4, 1.5, 1.6}}, // 1.3+3*0.1 rounds to 1.6, so it is kept
		{2.4, 2.4, 0.1, []float64{2.4}},
		{2.5, 2.4, 0.1, nil},
	}
	for _, tt := range tests {
		if got := steps(tt.from, tt.to, tt.by); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("steps(%v, %v, %v) = %v, want %v", tt.from, tt.to, tt.by, got, tt.want)
		}
	}
}

func TestThresholdsOn(t *testing.T) {
	p := ProfileFor(TierWeak)
	th := Thresholds{AbsFloor: 0.2, AbstainZTop1: 1.1, AbstainZEnt: 1.2, AmbigZEnt: 1.3, VeryAmbigZEnt: 1.4}
	q := th.on(p)
	if ThresholdsOf(q) != th {
		t.Errorf("ThresholdsOf(on) = %+v, want %+v", ThresholdsOf(q), th)
	}
	if q.KMin != p.KMin || q.KMax != p.KMax || q.KAmbig != p.KAmbig || q.KVeryAmbig != p.KVeryAmbig {
		t.Errorf("on changed the K bounds: %+v from %+v", q, p)
	}
}
