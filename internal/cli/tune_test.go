package cli

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/megagit/megagit/ranker"
)

// replayK must decide exactly as ranker.DynamicK.Decide does, or tune would
// score threshold sets the router never uses.
func TestReplayKMatchesDecide(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 2000; i++ {
		n := 1 + rng.Intn(25)
		scores := make([]float64, n)
		for j := range scores {
			scores[j] = rng.Float64() * rng.Float64()
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
		p := ranker.ProfileFor(ranker.TierMedium)
		p.AbsFloor = rng.Float64() * 0.3
		p.AbstainZTop1, p.AbstainZEnt = 1+rng.Float64()*2, 1+rng.Float64()*1.3
		p.AmbigZEnt, p.VeryAmbigZEnt = 1.3+rng.Float64()*0.6, 1.9+rng.Float64()*0.4
		want := p.Decide(scores)
		top := scores[:min(20, n)]
		c := tuneCase{top1: scores[0], zTop1: want.ZTop1, zEnt: want.ZEnt, elbow: elbowOf(top), n: n}
		if got := replayK(fromProfile(p), p, c, 0); got != want.K {
			t.Fatalf("case %d: replayK = %d, Decide = %+v (scores %v)", i, got, want, scores)
		}
	}
}
