package ranker

import "math"

// Signals are the statistics of one prompt's ranking that the abstention
// gate reads: how strong the leader is in each channel, how far it stands
// from the rest, and how large the catalog it won in is.
type Signals struct {
	// Skills is the number of candidates (non-archived skills).
	Skills int `json:"skills"`
	// Top and Second are the final scores of the leader and the runner-up;
	// Mean10 is the mean final score of the top ten.
	Top    float64 `json:"top"`
	Second float64 `json:"second"`
	Mean10 float64 `json:"mean10"`
	// Lexical is the best normalised lexical score of any candidate, Dense
	// the best dense score (0 without a dense channel).
	Lexical float64 `json:"lexical"`
	Dense   float64 `json:"dense"`
	// DenseSD is the spread of the prompt's dense scores over every
	// candidate (0 without a dense channel).
	DenseSD float64 `json:"dense_sd"`
	// Terms counts the prompt's distinct content terms, Known those some
	// skill contains.
	Terms int `json:"terms"`
	Known int `json:"known"`
}

// signals gathers Signals from the ranked candidates (non-archived, in
// ranking order).
func signals(q query, cands []Breakdown) Signals {
	s := Signals{Skills: len(cands), Terms: q.nterms, Known: len(q.terms)}
	if len(cands) > 0 {
		s.Top = cands[0].Final
	}
	if len(cands) > 1 {
		s.Second = cands[1].Final
	}
	top := cands[:min(10, len(cands))]
	for _, b := range top {
		s.Mean10 += b.Final
	}
	if len(top) > 0 {
		s.Mean10 /= float64(len(top))
	}
	var sum, sum2 float64
	n := 0
	for _, b := range cands {
		s.Lexical = math.Max(s.Lexical, b.Lexical)
		if b.Dense != nil {
			d := *b.Dense
			s.Dense = math.Max(s.Dense, d)
			sum += d
			sum2 += d * d
			n++
		}
	}
	if n > 0 {
		mean := sum / float64(n)
		s.DenseSD = math.Sqrt(math.Max(0, sum2/float64(n)-mean*mean))
	}
	return s
}

// asLeader is s as it would be if the candidate at rank i (from 0) led:
// its own scores, and its margins to what ranks below it.
func (s Signals) asLeader(cands []Breakdown, i int) Signals {
	b := cands[i]
	s.Top, s.Lexical, s.Dense = b.Final, b.Lexical, 0
	if b.Dense != nil {
		s.Dense = *b.Dense
	}
	s.Second = 0
	if i+1 < len(cands) {
		s.Second = cands[i+1].Final
	}
	return s
}
