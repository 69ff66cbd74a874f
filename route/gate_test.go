package route

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/megagit/megagit/ranker"
)

// builtinModels are the built-in models' ids, each with a shipped gate
// (route/dense checks that the list is models.BuiltinIDs).
var builtinModels = []string{"megagit-static-v3"}

func TestShippedGatesLoad(t *testing.T) {
	for _, name := range append([]string{LexicalGate}, builtinModels...) {
		g := ShippedGate(name)
		if g == nil {
			t.Fatalf("no shipped gate %q", name)
		}
		if g.MinSkills < 1 || g.Threshold != 0.5 {
			t.Errorf("%s: min_skills %d, threshold %v", name, g.MinSkills, g.Threshold)
		}
	}
	if ShippedGate("some-onnx-model") != nil {
		t.Error("a model without a fitted gate got one")
	}
	// Every shipped gate decides from 156 skills, the one below it from 10;
	// smaller catalogs keep the profile's floors.
	for _, name := range append([]string{LexicalGate}, builtinModels...) {
		g := ShippedGate(name)
		if g.MinSkills != 156 || g.For(100) == nil || g.For(100) == g || g.For(10) == nil || g.For(9) != nil {
			t.Errorf("%s: min_skills %d, gate for 100 skills %p, for 10 %p, for 9 %p", name, g.MinSkills, g.For(100), g.For(10), g.For(9))
		}
	}
}

// nullSignals draws one prompt that fits no skill in a catalog of n: every
// skill's cosine and lexical score come from the same distributions, so
// the leader is just the best of n draws. This is the situation where one
// fixed floor lets more through as the catalog grows.
func nullSignals(r *rand.Rand, n int, dense bool) ranker.Signals {
	type cand struct{ lex, cos, fused float64 }
	cands := make([]cand, n)
	s := ranker.Signals{Skills: n, Terms: 5, Known: 4}
	var sum, sum2 float64
	for i := range cands {
		c := &cands[i]
		if r.Float64() < 0.02 { // a shared word
			c.lex = 0.15 * r.Float64()
		}
		s.Lexical = math.Max(s.Lexical, c.lex)
		c.fused = c.lex
		if dense {
			c.cos = 0.03 + 0.065*r.NormFloat64()
			s.Dense = math.Max(s.Dense, c.cos)
			sum += c.cos
			sum2 += c.cos * c.cos
			c.fused = 0.6*c.lex + 0.4*c.cos
		}
	}
	if dense {
		s.DenseMean = sum / float64(n)
		s.DenseSD = math.Sqrt(sum2/float64(n) - s.DenseMean*s.DenseMean)
	}
	slices.SortFunc(cands, func(a, b cand) int { return -cmpFloat(a.fused, b.fused) })
	s.Top, s.Second = cands[0].fused, cands[1].fused
	for _, c := range cands[:10] {
		s.Mean10 += c.fused / 10
	}
	lead := cands[0]
	if dense {
		s.LeadDense = lead.cos
	}
	for _, c := range cands[1:] {
		if c.lex > lead.lex {
			s.LeadLexRank++
		}
		if dense && c.cos > lead.cos {
			s.LeadDenseRank++
		}
	}
	return s
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestShippedGateCatalogGrowth pins what the gate is for: prompts that fit
// no skill must not get through more often as the catalog grows from the
// smallest size the gate was fitted on to ten thousand skills.
func TestShippedGateCatalogGrowth(t *testing.T) {
	type gateCase struct {
		name  string
		dense bool
	}
	cases := []gateCase{{LexicalGate, false}}
	for _, id := range builtinModels {
		cases = append(cases, gateCase{id, true})
	}
	for _, c := range cases {
		g := ShippedGate(c.name)
		// The fixed floor the gate replaced: 0.10 on the lexical share,
		// 0.6·0.10 + 0.4·0.20 fused.
		floor := 0.10
		if c.dense {
			floor = 0.14
		}
		rates := func(n int) (gate, fixed float64) {
			r := rand.New(rand.NewPCG(1, uint64(n)))
			const trials = 400
			for range trials {
				s := nullSignals(r, n, c.dense)
				if d := g.For(n); d != nil && d.Prob(s) >= d.Threshold {
					gate += 1.0 / trials
				}
				if s.Top >= floor {
					fixed += 1.0 / trials
				}
			}
			return gate, fixed
		}
		rate := func(n int) float64 { g, _ := rates(n); return g }
		smallest := g.MinSkills // the smallest catalog any of its gates was fitted on
		for b := g.Below; b != nil; b = b.Below {
			smallest = b.MinSkills
		}
		// The draws reproduce the problem: a fixed floor lets more through.
		_, fixedSmall := rates(smallest)
		if _, fixedLarge := rates(2000); fixedLarge < fixedSmall+0.1 {
			t.Fatalf("%s: the fixed floor emits %.3f at %d skills and %.3f at 2000: the draws do not show the problem",
				c.name, fixedSmall, smallest, fixedLarge)
		}
		base := rate(smallest)
		for _, n := range []int{100, g.MinSkills, 500, 2000, 10000} {
			if n < smallest {
				continue
			}
			got := rate(n)
			if got > base+0.02 {
				t.Errorf("%s: %.3f of null prompts emitted at %d skills, %.3f at %d", c.name, got, n, base, smallest)
			}
			t.Logf("%s: false emissions %.3f at %d skills, %.3f at %d", c.name, got, n, base, smallest)
		}
	}
}

type fakeDense struct{ prof DenseProfile }

func (f fakeDense) Scores(string) ([]float64, error) { return nil, nil }
func (f fakeDense) DenseProfile() DenseProfile       { return f.prof }

// TestRouterGates: which gate decides, by model and config.
func TestRouterGates(t *testing.T) {
	for _, id := range builtinModels {
		t.Run(id, func(t *testing.T) { testRouterGates(t, id) })
	}
}

func testRouterGates(t *testing.T, id string) {
	docs := []ranker.Doc{{ID: "a", Description: "alpha", Weight: 1}}
	cfg := ranker.DefaultConfig()
	model, lexical := ShippedGate(id), ShippedGate(LexicalGate)
	fitted, err := ranker.NewGate(*ShippedGate(LexicalGate)) // a copy: another gate
	if err != nil {
		t.Fatal(err)
	}
	withModel := fakeDense{DenseProfile{FusionW: 0.4, AbsFloor: 0.2, Tier: "medium", Gate: model}}
	onnx := fakeDense{DenseProfile{FusionW: 0.5, AbsFloor: 0.6, Tier: "strong"}}
	for _, tt := range []struct {
		name          string
		sem           Dense
		dk            DynamicKOverride
		dense, lexGot *ranker.Gate
	}{
		{"built-in model", withModel, DynamicKOverride{}, model, lexical},
		{"lexical only", nil, DynamicKOverride{}, nil, lexical},
		{"an ONNX model keeps its floor", onnx, DynamicKOverride{}, nil, lexical},
		{"gate off", withModel, DynamicKOverride{NoGate: true}, nil, nil},
		{"a fitted gate, with a model", withModel, DynamicKOverride{Gate: fitted}, fitted, lexical},
		{"a fitted gate, lexical", nil, DynamicKOverride{Gate: fitted}, nil, fitted},
	} {
		r, _ := New(docs, cfg, tt.sem, tt.dk, nil)
		var dense, lex *ranker.Gate
		if r.prof != nil {
			dense = r.prof.Gate
		}
		if r.lex != nil {
			lex = r.lex.Gate
		}
		if dense != tt.dense || lex != tt.lexGot {
			t.Errorf("%s: gates %p / %p, want %p / %p", tt.name, dense, lex, tt.dense, tt.lexGot)
		}
		if tt.sem != nil && r.prof.AbsFloor <= 0 {
			t.Errorf("%s: no floor for catalogs below the gate's", tt.name)
		}
	}
}
