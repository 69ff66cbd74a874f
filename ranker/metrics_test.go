package ranker

import (
	"math"
	"testing"
)

func TestScore(t *testing.T) {
	ranked := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	tests := []struct {
		name string
		o    Outcome
		want QueryScore
	}{
		{"hit at 1", Outcome{Gold: []string{"a"}, Ranked: ranked, Emitted: []string{"a", "b"}},
			QueryScore{R1: 1, R5: 1, R10: 1, MRR: 1, Coverage: 1, K: 2}},
		{"hit at 3", Outcome{Gold: []string{"c"}, Ranked: ranked, Emitted: []string{"a"}},
			QueryScore{R5: 1, R10: 1, MRR: 1.0 / 3, K: 1}},
		{"two gold, one at 7", Outcome{Gold: []string{"b", "g"}, Ranked: ranked, Emitted: []string{"b", "g", "x"}},
			QueryScore{R5: 0.5, R10: 1, MRR: 0.5, Coverage: 1, K: 3}},
		{"gold at 11", Outcome{Gold: []string{"k"}, Ranked: ranked},
			QueryScore{MRR: 1.0 / 11}},
		{"gold missing", Outcome{Gold: []string{"z"}, Ranked: ranked, Emitted: []string{"a"}},
			QueryScore{K: 1}},
		{"null abstained", Outcome{Ranked: ranked}, QueryScore{Null: true, Coverage: 1}},
		{"null emitted", Outcome{Ranked: ranked, Emitted: []string{"a"}}, QueryScore{Null: true, K: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Score(tt.o); got != tt.want {
				t.Errorf("Score = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewReport(t *testing.T) {
	scores := []QueryScore{
		{R1: 1, R5: 1, R10: 1, MRR: 1, Coverage: 1, K: 2, Tokens: 40},
		{R5: 1, R10: 1, MRR: 0.5, Coverage: 0, K: 1, Tokens: 20},
		{Null: true, Coverage: 1},
		{Null: true, Coverage: 0, K: 3, Tokens: 60},
	}
	r := NewReport(scores)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if r.Overall.N != 4 || r.Overall.InDist != 2 || r.Overall.Null != 2 {
		t.Errorf("counts %+v", r.Overall)
	}
	if !near(r.Overall.Coverage, 0.5) || !near(r.Overall.R1, 0.5) || !near(r.Overall.MRR, 0.75) || !near(r.Overall.MeanK, 1.5) || !near(r.Overall.MeanTokens, 30) {
		t.Errorf("overall %+v", r.Overall)
	}
	if !near(r.InDist.Coverage, 0.5) || !near(r.Null.Coverage, 0.5) || !near(r.Null.MeanK, 1.5) {
		t.Errorf("split %+v %+v", r.InDist, r.Null)
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("empty summary not zero")
	}
}

func TestRound4(t *testing.T) {
	for in, want := range map[float64]float64{0.12345: 0.1235, -0.12345: -0.1235, 0.99996: 1, 0: 0, 2.00004: 2} {
		if got := Round4(in); got != want {
			t.Errorf("Round4(%v) = %v, want %v", in, got, want)
		}
	}
}
