package ranker

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestPermute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 257} {
		bs := make([]Breakdown, n)
		for i := range bs {
			bs[i].Doc = i
		}
		order := make([]int32, n)
		for i, p := range r.Perm(n) {
			order[i] = int32(p)
		}
		want := slices.Clone(order)
		permute(bs, order)
		for k, b := range bs {
			if b.Doc != int(want[k]) {
				t.Fatalf("n=%d: bs[%d].Doc = %d, want %d", n, k, b.Doc, want[k])
			}
		}
	}
}

// TestRankedMatchesStableSort checks ranked against a stable sort of the
// breakdowns themselves: same order, ties (equal scores, even equal ids)
// included, with and without dense scores.
func TestRankedMatchesStableSort(t *testing.T) {
	docs := synthDocs(500)
	for i := range docs {
		switch i % 7 {
		case 0:
			docs[i].Status = StatusArchived
		case 2:
			docs[i].Status = StatusSuspect
		case 4:
			docs[i].ID = docs[i-1].ID // equal ids: only stability orders them
		}
	}
	ix := NewIndex(docs, DefaultConfig())
	r := rand.New(rand.NewPCG(3, 4))
	dense := make([]float64, len(docs))
	for i := range dense {
		dense[i] = float64(r.IntN(4)) / 4 // coarse: many ties
	}
	for _, tc := range []struct {
		name  string
		q     string
		dense []float64
	}{
		{"lexical", "w12x w77x w300x deploy w1500x w2999x", nil},
		{"no match", "zzzz", nil},
		{"dense", "w12x w77x deploy", dense},
		{"dense short", "w12x", dense[:100]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := ix.parse(ix.Read(tc.q))
			raw := make([]float64, len(docs))
			ix.lexical(q, raw)
			want := make([]Breakdown, len(docs))
			var vals []float64
			if tc.dense != nil {
				vals = make([]float64, len(docs))
			}
			for i := range want {
				ix.breakdown(&want[i], i, q, raw[i], tc.dense, vals, nil)
			}
			slices.SortStableFunc(want, func(a, b Breakdown) int {
				switch {
				case less(&a, &b):
					return -1
				case less(&b, &a):
					return 1
				}
				return 0
			})
			if got := ix.ranked(q, raw, tc.dense, nil, nil, nil, nil, 0); !reflect.DeepEqual(got.ranked, want) || got.full != nil {
				t.Fatal("ranked differs from a stable sort of the breakdowns")
			}
			// Only the head: it is the full ranking's head, and ranking
			// them all gives the full ranking.
			for _, head := range []int{1, 21, 32, 100, 300} {
				got := ix.ranked(q, raw, tc.dense, nil, nil, nil, nil, head)
				if len(got.ranked) < min(head, len(want)) || !reflect.DeepEqual(got.ranked, want[:len(got.ranked)]) {
					t.Fatalf("head %d: the first %d of the ranking differ from the full ranking's", head, len(got.ranked))
				}
				res := Result{Ranked: got.ranked, pool: got.pool, full: got.full}
				res.rankAll()
				if !reflect.DeepEqual(res.Ranked, want) {
					t.Fatalf("head %d: ranking them all differs from the full ranking", head)
				}
			}
		})
	}
}

// TestRankHeadDecidesAsTheFullRanking checks a ranking asked for its head
// only (Options.Head) decides exactly as the full one: the same skills
// emitted, K, reason, signals and gate, and its ordered head is the full
// ranking's; with the shipped gates, dense scores, skills kept out and
// forced, a cap and a fixed K, over a catalog large enough that the head
// is a small part of it.
func TestRankHeadDecidesAsTheFullRanking(t *testing.T) {
	docs := append(realDocs(t), synthDocs(600)...)
	ix := NewIndex(docs, DefaultConfig())
	var gates []*Gate
	for _, name := range []string{"lexical.json", "megagit-static-v3.json"} {
		data, err := os.ReadFile(filepath.Join("..", "route", "gates", name))
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseGate(data)
		if err != nil {
			t.Fatal(err)
		}
		gates = append(gates, g)
	}
	r := rand.New(rand.NewPCG(5, 6))
	dense := make([]float64, len(docs))
	for i := range dense {
		dense[i] = r.Float64() * 0.6
	}
	mask := func(every int) []bool {
		m := make([]bool, len(docs))
		for i := range m {
			m[i] = i%every == 3
		}
		return m
	}
	queries := append(realQueries(docs[:40]), "w12x w77x w300x deploy w1500x w2999x", "w5x", "deploy the docker image to kubernetes")
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"lexical", Options{}},
		{"lexical gate", Options{Profile: &DynamicK{AbstainZTop1: 1.8, AbstainZEnt: 1.85, VeryAmbigZEnt: 2.1, AmbigZEnt: 1.7, KMin: 2, KMax: 8, KAmbig: 5, KVeryAmbig: 10, Gate: gates[0]}}},
		{"dense gate", Options{Dense: dense, DenseFloor: 0.3, Profile: &DynamicK{KMin: 2, KMax: 10, KAmbig: 5, KVeryAmbig: 10, AmbigZEnt: 1.7, VeryAmbigZEnt: 2.1, Gate: gates[1]}}},
		{"weak tier", Options{Dense: dense, DenseFloor: 0.5, Profile: &DynamicK{KMin: 5, KMax: 20, KAmbig: 10, KVeryAmbig: 15, AmbigZEnt: 1.0, VeryAmbigZEnt: 1.2}}},
		{"out and denied", Options{Out: mask(5), Deny: mask(7)}},
		{"forced", Options{Force: mask(50), TopK: 3}},
		{"cap", Options{TopK: 1}},
		{"fixed", Options{NoDynamicK: true, TopK: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range queries {
				full := ix.Rank(q, tc.opt)
				opt := tc.opt
				opt.Head = 32
				head := ix.Rank(q, opt)
				if !reflect.DeepEqual(head.Emitted, full.Emitted) || head.K != full.K || head.Reason != full.Reason ||
					!reflect.DeepEqual(head.Decision, full.Decision) || head.Signals != full.Signals || head.Gate != full.Gate ||
					!reflect.DeepEqual(head.Forced, full.Forced) {
					t.Fatalf("%q: with a head of 32 emitted %v (K %d, %s, %+v %+v), the full ranking %v (K %d, %s, %+v %+v)",
						q, head.Emitted, head.K, head.Reason, head.Signals, head.Decision, full.Emitted, full.K, full.Reason, full.Signals, full.Decision)
				}
				if len(head.Ranked) < 32 || !reflect.DeepEqual(head.Ranked, full.Ranked[:len(head.Ranked)]) {
					t.Fatalf("%q: the head (%d) differs from the full ranking's", q, len(head.Ranked))
				}
				for d := 0; d < len(docs); d += 7 {
					if head.Matched(d, 0.3) != full.Matched(d, 0.3) {
						t.Fatalf("%q: doc %d matched %v with a head, %v in full", q, d, head.Matched(d, 0.3), full.Matched(d, 0.3))
					}
				}
			}
		})
	}
}
