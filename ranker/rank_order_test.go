package ranker

import (
	"math/rand/v2"
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
			if got := ix.ranked(q, raw, tc.dense, nil, nil, nil); !reflect.DeepEqual(got, want) {
				t.Fatal("ranked differs from a stable sort of the breakdowns")
			}
		})
	}
}
