package ranker

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRankDense1000 is BenchmarkRank's 1,000-skill case with the
// built-in model's settings (linear fusion, weight 0.4, cosine floor 0.20,
// fused floor 0.6·0.10 + 0.4·0.20, medium tier) and random dense scores.
// "cosines" is the semantic channel's own cost on top: what megagit does
// per prompt for 1,000 skills (two dot products of 256 floats per skill,
// description and name). The query embedding itself is measured by
// embedcache's BenchmarkStaticEmbedQuery.
func BenchmarkRankDense1000(b *testing.B) {
	const n, dim = 1000, 256
	rng := rand.New(rand.NewPCG(3, 4))
	q := "w12x w77x w300x deploy w1500x " + "w2999x"

	b.Run("lexical", func(b *testing.B) {
		ix := NewIndex(synthDocs(n), DefaultConfig())
		for b.Loop() {
			ix.Rank(q, Options{})
		}
	})

	b.Run("fused", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.Fusion = Fusion{Mode: FusionLinear, DenseWeight: 0.4}
		ix := NewIndex(synthDocs(n), cfg)
		p := ProfileFor(TierMedium)
		p.AbsFloor = 0.6*cfg.DynamicK.AbsFloor + 0.4*0.20
		dense := make([]float64, n)
		for i := range dense {
			dense[i] = rng.Float64() * 0.5
		}
		for b.Loop() {
			ix.Rank(q, Options{Dense: dense, DenseFloor: 0.20, Profile: &p})
		}
	})

	b.Run("cosines", func(b *testing.B) {
		vec := func() []float32 {
			v := make([]float32, dim)
			for i := range v {
				v[i] = rng.Float32() - 0.5
			}
			return v
		}
		query := vec()
		full, name := make([][]float32, n), make([][]float32, n)
		for i := range full {
			full[i], name[i] = vec(), vec()
		}
		out := make([]float64, n)
		for b.Loop() {
			for i := range full {
				out[i] = max(benchDot(query, full[i]), benchDot(query, name[i]))
			}
		}
	})
}

func benchDot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
