package ranker

import (
	"math"
	"testing"
)

// Worked examples of dynamic K, each a shape of scores with its decision:
// a clean peak cuts at the gap after the third skill; equal scores are a
// prompt nothing fits; an overwhelming leader still gets a backup (KMin 2).
func TestDynamicKWorkedExamples(t *testing.T) {
	cfg := DefaultDynamicK()
	tests := []struct {
		name   string
		scores []float64
		k      int
		reason KReason
		zTop1  float64
		zEnt   float64
	}{
		{"clean peak", []float64{0.78, 0.62, 0.58, 0.41, 0.38, 0.36, 0.35, 0.34, 0.33, 0.32}, 3, "gap-cut@2", 2.23, 1.64},
		{"null prompt", []float64{0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30}, 0, "uniform-null", 0, 2.30},
		{"overwhelming leader", []float64{0.82, 0.41, 0.40, 0.39, 0.38, 0.37, 0.36, 0.35, 0.34, 0.33}, 2, "gap-cut@0", 2.95, 1.13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := cfg.Decide(tt.scores)
			if d.K != tt.k || d.Reason != tt.reason {
				t.Errorf("Decide = (%d, %q), want (%d, %q)", d.K, d.Reason, tt.k, tt.reason)
			}
			if math.Abs(d.ZTop1-tt.zTop1) > 0.01 || math.Abs(d.ZEnt-tt.zEnt) > 0.01 {
				t.Errorf("z_top1 %.3f z_ent %.3f, want %.2f %.2f", d.ZTop1, d.ZEnt, tt.zTop1, tt.zEnt)
			}
		})
	}
}

// An ambiguous prompt ("JWT": auth, crypto or token?) with a mild leader
// (z_top1 2.10) and a flat top (z_ent 1.82) widens K to 5. The example
// these figures come from pairs them with ten evenly spaced scores, but
// those scores give z_top1 = 1.57 and z_ent = 1.92 under the definitions
// that reproduce the clean-peak example exactly, and fall in the
// uniform-null branch: the ambiguous decision is pinned on the stated
// statistics, and the scores' own decision beside it.
func TestDynamicKAmbiguousExample(t *testing.T) {
	scores := []float64{0.55, 0.53, 0.51, 0.49, 0.47, 0.45, 0.43, 0.41, 0.39, 0.37}
	if k, r := DefaultDynamicK().decide(scores[0], 2.10, 1.82, elbow(scores)); k != 5 || r != "ambiguous" {
		t.Errorf("decide = (%d, %q), want (5, \"ambiguous\")", k, r)
	}
	got := DefaultDynamicK().Decide(scores)
	if math.Abs(got.ZTop1-1.567) > 0.01 || math.Abs(got.ZEnt-1.918) > 0.01 || got.Reason != "uniform-null" {
		t.Errorf("listed scores: z_top1 %.3f z_ent %.3f %q", got.ZTop1, got.ZEnt, got.Reason)
	}
}

func TestDynamicKBranches(t *testing.T) {
	peak := []float64{0.9, 0.2, 0.19, 0.18, 0.17, 0.16, 0.15, 0.14, 0.13, 0.12}
	tests := []struct {
		name   string
		cfg    DynamicK
		scores []float64
		k      int
		reason KReason
	}{
		{"empty", DefaultDynamicK(), nil, 0, "empty"},
		{"one score", DefaultDynamicK(), []float64{0.5}, 1, "gap-cut@0"},
		{"two equal", DefaultDynamicK(), []float64{0.5, 0.5}, 2, "gap-cut@0"},
		{"abs floor first", DynamicK{AbsFloor: 0.95, AbstainZTop1: 1.8, AbstainZEnt: 1.85, KMin: 2, KMax: 8}, peak, 0, "abs-floor"},
		{"floor passes", DynamicK{AbsFloor: 0.5, AbstainZTop1: 1.8, AbstainZEnt: 1.85, VeryAmbigZEnt: 2.1, AmbigZEnt: 1.7, KMin: 2, KMax: 8}, peak, 2, "gap-cut@0"},
		{"very ambiguous", DynamicK{AbstainZTop1: -1, AbstainZEnt: 9, VeryAmbigZEnt: 2.1, AmbigZEnt: 1.7, KVeryAmbig: 10, KAmbig: 5}, []float64{0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3}, 10, "very-ambiguous"},
		{"k capped by scores", DynamicK{VeryAmbigZEnt: 0.5, AbstainZTop1: -1, KVeryAmbig: 10}, []float64{0.3, 0.2, 0.1}, 3, "very-ambiguous"},
		{"medium k_min", ProfileFor(TierMedium), peak, 3, "gap-cut@0"},
		{"weak k_min", ProfileFor(TierWeak), peak, 5, "gap-cut@0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.cfg.Decide(tt.scores)
			if d.K != tt.k || d.Reason != tt.reason {
				t.Errorf("Decide = (%d, %q), want (%d, %q)", d.K, d.Reason, tt.k, tt.reason)
			}
		})
	}
}

func TestDynamicKUsesTop20Only(t *testing.T) {
	// A long flat tail beyond 20 must not change the statistics.
	s := []float64{0.78, 0.62, 0.58, 0.41, 0.38, 0.36, 0.35, 0.34, 0.33, 0.32}
	for len(s) < 20 {
		s = append(s, 0.3)
	}
	a := DefaultDynamicK().Decide(s)
	b := DefaultDynamicK().Decide(append(s, make([]float64, 100)...))
	if a != b {
		t.Errorf("tail changed the decision: %+v vs %+v", a, b)
	}
}

func TestProfiles(t *testing.T) {
	tests := []struct {
		tier               string
		kmin, kmax, ka, kv int
	}{
		{TierStrong, 2, 10, 5, 10},
		{TierMedium, 3, 15, 7, 12},
		{TierWeak, 5, 20, 10, 15},
		{"unknown", 2, 10, 5, 10},
	}
	for _, tt := range tests {
		c := ProfileFor(tt.tier)
		if c.KMin != tt.kmin || c.KMax != tt.kmax || c.KAmbig != tt.ka || c.KVeryAmbig != tt.kv || c.AbsFloor != 0 {
			t.Errorf("ProfileFor(%q) = %+v", tt.tier, c)
		}
	}
	if c := ProfileForModel("BAAI/bge-small-en-v1.5"); c.AbsFloor != 0.70 || c.KMin != 5 {
		t.Errorf("bge-small profile = %+v", c)
	}
	if c := ProfileForModel("someone/new-model"); c.AbsFloor != 0 || c.KMax != 10 {
		t.Errorf("unknown model profile = %+v", c)
	}
	if c := LexicalProfile(); c.AbsFloor != LexicalAbsFloor || c.KMin != ProfileFor(LexicalTier).KMin {
		t.Errorf("lexical profile = %+v", c)
	}
}

// The reasons are read by tools (route --json, the decision log, hook.log,
// tune): their text must never change.
func TestReasonTexts(t *testing.T) {
	tests := []struct {
		r       KReason
		text    string
		dynamic bool
	}{
		{ReasonAbsFloor, "abs-floor", true},
		{ReasonUniformNull, "uniform-null", true},
		{ReasonVeryAmbiguous, "very-ambiguous", true},
		{ReasonAmbiguous, "ambiguous", true},
		{GapCut(0), "gap-cut@0", true},
		{GapCut(7), "gap-cut@7", true},
		{GapCut(12), "gap-cut@12", true},
		{ReasonEmpty, "empty", false},
		{ReasonEmptyQuery, "empty-query", false},
		{ReasonNoMatch, "no-match", false},
		{ReasonFixed, "fixed", false},
		{ReasonLexicalDominant, "lexical-dominant", false},
		{ReasonBudget, "+budget", false},
		{"gap-cut", "gap-cut", false},
	}
	for _, tt := range tests {
		if string(tt.r) != tt.text {
			t.Errorf("reason %q, want %q", tt.r, tt.text)
		}
		if tt.r.Dynamic() != tt.dynamic {
			t.Errorf("%q.Dynamic() = %v, want %v", tt.r, !tt.dynamic, tt.dynamic)
		}
	}
}
