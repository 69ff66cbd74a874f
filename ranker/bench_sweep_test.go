package ranker

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// auc is the probability that a random in-distribution query's top score
// beats a random null query's: how well a floor can separate them.
func auc(in, null []float64) float64 {
	sort.Float64s(null)
	var s float64
	for _, x := range in {
		lo := sort.SearchFloat64s(null, x)
		hi := lo
		for hi < len(null) && null[hi] == x {
			hi++
		}
		s += float64(lo) + 0.5*float64(hi-lo)
	}
	return s / float64(len(in)*len(null))
}

// TestBenchTune sweeps ranking parameters on both benchmarks
// (MEGAGIT_TUNE=1). It prints; it asserts nothing.
func TestBenchTune(t *testing.T) {
	if os.Getenv("MEGAGIT_TUNE") != "1" {
		t.Skip("set MEGAGIT_TUNE=1 to sweep ranking parameters")
	}
	sets := []benchSet{
		loadBench(t, filepath.Join(benchRoot, "metatool"), "queries.jsonl"),
		loadBench(t, filepath.Join(benchRoot, "skills-dev"), "queries.jsonl"),
	}
	line := func(label string, cfg Config) {
		s := fmt.Sprintf("%-28s", label)
		for _, set := range sets {
			ix := NewIndex(set.docs, cfg)
			var in, null []float64
			for _, q := range set.queries {
				r := ix.Rank(q.Query, Options{})
				if len(q.Gold) == 0 {
					null = append(null, r.Ranked[0].Final)
				} else {
					in = append(in, r.Ranked[0].Final)
				}
			}
			r := NewReport(runPipeline(set, cfg, Options{}))
			s += fmt.Sprintf(" | %s R1 %.3f R5 %.3f MRR %.3f auc %.3f cov %.3f in %.3f null %.3f K %.2f bal %.3f",
				set.name[:4], r.InDist.R1, r.InDist.R5, r.InDist.MRR, auc(in, null), r.Overall.Coverage, r.InDist.Coverage, r.Null.Coverage, r.InDist.MeanK, (r.InDist.Coverage+r.Null.Coverage)/2)
		}
		t.Log(s)
	}
	base := DefaultConfig()
	line("default", base)
	c := base
	c.normKnownOnly = true
	line("norm over known terms only", c)
	// The floor maximising (in-dist + null coverage) / 2 on both sets.
	for _, floor := range []float64{0.06, 0.08, 0.12} {
		c := base
		c.DynamicK.AbsFloor = floor
		line(fmt.Sprintf("floor %.2f", floor), c)
	}
	c = base
	c.Fields.Headings.Weight = 1
	line("headings weight 1", c)
	for _, tier := range []string{TierStrong, TierWeak} {
		c := base
		c.DynamicK = ProfileFor(tier)
		c.DynamicK.AbsFloor = LexicalAbsFloor
		line(tier, c)
	}
	for _, dup := range []float64{0, 0.5, 0.7} {
		c := base
		c.MMR.DupSim = dup
		line(fmt.Sprintf("dupsim %.1f", dup), c)
	}
	for _, fp := range [][2]float64{{10, 3}, {15, 5}, {8, 4}} {
		c := base
		c.FastPath = LexicalFastPath{Min: fp[0], Margin: fp[1]}
		line(fmt.Sprintf("fastpath %.0f/%.0f", fp[0], fp[1]), c)
	}
	c = base
	c.Blend.Enabled = false
	line("blend off", c)
}
