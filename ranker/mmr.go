package ranker

// mmr orders candidates by maximal marginal relevance, so two skills that
// say the same thing do not both take the prompt's budget:
// lambda*rel - (1-lambda)*max similarity to those already chosen, dropping
// any candidate at least dupSim similar to a chosen one. The first candidate
// is always kept; ties go to the earlier candidate, so the result is
// deterministic for a deterministic candidate order. dropped are the
// near-duplicates left out, each with the chosen skill it is most like
// (nil when none was: the usual case costs nothing more).
func mmr(cands []int, rel func(int) float64, sim func(a, b int) float64, cfg MMR) (out []int, dropped []Dropped) {
	if len(cands) <= 1 {
		return append([]int(nil), cands...), nil
	}
	out = []int{cands[0]}
	rest := append([]int(nil), cands[1:]...)
	// maxSim[i] is rest[i]'s highest similarity to anything chosen so far.
	maxSim := make([]float64, len(rest))
	last := cands[0]
	for len(rest) > 0 {
		best, bestScore := -1, 0.0
		keep := rest[:0]
		keptSim := maxSim[:0]
		for i, c := range rest {
			s := max(maxSim[i], sim(last, c))
			if cfg.DupSim > 0 && s >= cfg.DupSim {
				dropped = append(dropped, likest(c, out, sim))
				continue // near-duplicate of a chosen skill
			}
			score := cfg.Lambda*rel(c) - (1-cfg.Lambda)*s
			if best < 0 || score > bestScore {
				best, bestScore = len(keep), score
			}
			keep = append(keep, c)
			keptSim = append(keptSim, s)
		}
		if best < 0 {
			break
		}
		last = keep[best]
		out = append(out, last)
		rest = append(keep[:best], keep[best+1:]...)
		maxSim = append(keptSim[:best], keptSim[best+1:]...)
	}
	return out, dropped
}

// Dropped is a candidate MMR left out as a near-duplicate of a chosen
// skill: Like, Sim their similarity, the model's cosine when ByModel
// (Options.Similar), else their TF-IDF vectors'.
type Dropped struct {
	Doc, Like int
	Sim       float64
	ByModel   bool
}

// likest is the chosen skill c is most like.
func likest(c int, chosen []int, sim func(a, b int) float64) Dropped {
	d := Dropped{Doc: c, Like: chosen[0], Sim: sim(chosen[0], c)}
	for _, o := range chosen[1:] {
		if s := sim(o, c); s > d.Sim {
			d.Like, d.Sim = o, s
		}
	}
	return d
}
