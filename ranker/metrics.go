package ranker

import "math"

// Outcome is what a routing method (megagit, or a baseline) did for one
// benchmark query: the full ranked list, what it emitted, and the tokens
// its injection cost.
type Outcome struct {
	ID      string
	Gold    []string
	Ranked  []string
	Emitted []string
	Tokens  int
}

// QueryScore is one query's metrics: recall at 1, 5 and 10 and the
// reciprocal rank of the first gold skill on the ranked list, coverage on
// the emitted set. Recall and MRR are meaningful only when Null is false.
type QueryScore struct {
	ID               string
	Null             bool
	R1, R5, R10, MRR float64
	Coverage         float64
	K, Tokens        int
}

// Score computes recall@1/5/10 and MRR on the ranked list and coverage on
// the emitted set: |gold ∩ emitted| / |gold|, or for a null query 1 exactly
// when nothing was emitted.
func Score(o Outcome) QueryScore {
	s := QueryScore{ID: o.ID, Null: len(o.Gold) == 0, K: len(o.Emitted), Tokens: o.Tokens}
	if s.Null {
		if len(o.Emitted) == 0 {
			s.Coverage = 1
		}
		return s
	}
	gold := make(map[string]bool, len(o.Gold))
	for _, g := range o.Gold {
		gold[g] = true
	}
	g := float64(len(gold))
	hits := 0
	for i, id := range o.Ranked {
		if !gold[id] {
			continue
		}
		if hits == 0 {
			s.MRR = 1 / float64(i+1)
		}
		hits++
		if i < 1 {
			s.R1++
		}
		if i < 5 {
			s.R5++
		}
		if i < 10 {
			s.R10++
		}
	}
	s.R1, s.R5, s.R10 = s.R1/g, s.R5/g, s.R10/g
	seen := map[string]bool{}
	for _, id := range o.Emitted {
		if gold[id] && !seen[id] {
			seen[id] = true
			s.Coverage++
		}
	}
	s.Coverage /= g
	return s
}

// Summary is a macro-mean over a set of queries. Recall and MRR average
// over the InDist queries among them; the rest over all N.
type Summary struct {
	N, InDist, Null  int
	R1, R5, R10, MRR float64
	Coverage         float64
	MeanK            float64
	MeanTokens       float64
}

// Report is `megagit eval`'s headline: all queries, in-distribution ones
// (non-empty gold) and null ones, each summarised separately.
type Report struct {
	Overall, InDist, Null Summary
}

// Summarize macro-averages query scores.
func Summarize(scores []QueryScore) Summary {
	var s Summary
	for _, q := range scores {
		s.N++
		s.Coverage += q.Coverage
		s.MeanK += float64(q.K)
		s.MeanTokens += float64(q.Tokens)
		if q.Null {
			s.Null++
			continue
		}
		s.InDist++
		s.R1 += q.R1
		s.R5 += q.R5
		s.R10 += q.R10
		s.MRR += q.MRR
	}
	if s.N > 0 {
		s.Coverage /= float64(s.N)
		s.MeanK /= float64(s.N)
		s.MeanTokens /= float64(s.N)
	}
	if s.InDist > 0 {
		d := float64(s.InDist)
		s.R1, s.R5, s.R10, s.MRR = s.R1/d, s.R5/d, s.R10/d, s.MRR/d
	}
	return s
}

// NewReport splits query scores into overall, in-distribution and null
// summaries.
func NewReport(scores []QueryScore) Report {
	var in, null []QueryScore
	for _, q := range scores {
		if q.Null {
			null = append(null, q)
		} else {
			in = append(in, q)
		}
	}
	return Report{Overall: Summarize(scores), InDist: Summarize(in), Null: Summarize(null)}
}

// Round4 rounds a score to 4 decimals, half away from zero, as every
// score megagit prints or logs.
func Round4(x float64) float64 {
	return float64(int64(x*10000+math.Copysign(0.5, x))) / 10000
}
