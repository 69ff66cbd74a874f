package ranker

import (
	"math"
	"testing"
)

func TestCountBonus(t *testing.T) {
	tests := []struct {
		h, m int
		want float64
	}{
		{0, 0, 0},
		{1, 0, (2.0/3 - 0.5) * 0.1},
		{10, 0, 11.0/12 - 0.5},
		{0, 10, 1.0/12 - 0.5},
		{5, 5, 0},
		{8, 0, (9.0/10 - 0.5) * 0.8},
		{1000, 0, 1001.0/1002 - 0.5},
	}
	for _, tt := range tests {
		got := CountBonus(tt.h, tt.m)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("CountBonus(%d, %d) = %v, want %v", tt.h, tt.m, got, tt.want)
		}
		if got < -0.5 || got > 0.5 {
			t.Errorf("CountBonus(%d, %d) = %v out of [-0.5, 0.5]", tt.h, tt.m, got)
		}
	}
}

func TestBlendTerms(t *testing.T) {
	b := DefaultBlend()
	tests := []struct {
		name string
		in   Breakdown
		want Breakdown // only the checked fields
	}{
		{"cold start is exactly relevance",
			Breakdown{Relevance: 0.4371, Weight: 1, Status: StatusActive},
			Breakdown{Final: 0.4371, StatusMult: 1}},
		{"count term",
			Breakdown{Relevance: 0.5, Helpful: 10, Weight: 1, Status: StatusActive},
			Breakdown{CountRaw: 11.0/12 - 0.5, Count: 0.1 * (11.0/12 - 0.5), Final: 0.5 + 0.1*(11.0/12-0.5), StatusMult: 1}},
		{"context term with harm asymmetry",
			Breakdown{Relevance: 0.5, HelpCtx: 0.8, HarmCtx: 0.2, Weight: 1, Status: StatusActive},
			Breakdown{Context: 0.15 * (0.8 - 1.5*0.2), Final: 0.5 + 0.15*(0.8-0.3), StatusMult: 1}},
		{"related term",
			Breakdown{Relevance: 0.5, RelatedHelp: 0.7, RelatedHarm: 0.1, Weight: 1, Status: StatusActive},
			Breakdown{Related: 0.1 * 0.6, Final: 0.5 + 0.06, StatusMult: 1}},
		{"trajectory weight",
			Breakdown{Relevance: 0.5, Weight: 1.2, Status: StatusActive},
			Breakdown{Final: 0.6, StatusMult: 1}},
		{"suspect halves",
			Breakdown{Relevance: 0.5, Weight: 1, Status: StatusSuspect},
			Breakdown{Final: 0.25, StatusMult: 0.5}},
		{"archived sentinel zeroes every term",
			Breakdown{Relevance: 0.9, Helpful: 10, HelpCtx: 1, RelatedHelp: 1, Weight: 1.5, Status: StatusArchived},
			Breakdown{Final: ArchivedScore, StatusMult: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			b.Apply(&got)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
			if !near(got.Final, tt.want.Final) || !near(got.Count, tt.want.Count) || !near(got.CountRaw, tt.want.CountRaw) ||
				!near(got.Context, tt.want.Context) || !near(got.Related, tt.want.Related) || got.StatusMult != tt.want.StatusMult {
				t.Errorf("Apply = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBlendColdStartBitIdentical(t *testing.T) {
	for _, rel := range []float64{0, 0.1, 1.0 / 3, 0.7777777777777} {
		bd := Breakdown{Relevance: rel, Weight: 1, Status: StatusActive}
		DefaultBlend().Apply(&bd)
		if bd.Final != rel {
			t.Errorf("cold start %v scored %v", rel, bd.Final)
		}
	}
}

func TestBlendOff(t *testing.T) {
	b := DefaultBlend()
	b.Enabled = false
	bd := Breakdown{Relevance: 0.5, Helpful: 10, HelpCtx: 1, Weight: 1.5, Status: StatusSuspect}
	b.Apply(&bd)
	if bd.Final != 0.5 || bd.Count != 0 || bd.Context != 0 {
		t.Errorf("blend off = %+v, want pure relevance", bd)
	}
}

func TestWeightedTermsBounded(t *testing.T) {
	b := DefaultBlend()
	for _, n := range [][2]int{{0, 100}, {100, 0}, {3, 7}} {
		bd := Breakdown{Helpful: n[0], Harmful: n[1], Weight: 1}
		b.Apply(&bd)
		if math.Abs(bd.Count) > 0.05 {
			t.Errorf("count term %v exceeds 0.05", bd.Count)
		}
	}
}
