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
	// DenseMean is the mean of the prompt's dense scores over every
	// candidate, LeadDense the leader's own dense score (0 without a
	// dense channel).
	DenseMean float64 `json:"dense_mean"`
	LeadDense float64 `json:"lead_dense"`
	// LeadDenseRank and LeadLexRank count the candidates that beat the
	// leader in the dense and in the lexical channel alone (0: the leader
	// is best in that channel too). A prompt some skill fits tends to
	// find that skill first in both; a prompt nothing fits meets its
	// best lexical and its best dense match in different skills.
	LeadDenseRank int `json:"lead_dense_rank"`
	LeadLexRank   int `json:"lead_lex_rank"`
	// Terms counts the prompt's distinct content terms, Known those some
	// skill contains.
	Terms int `json:"terms"`
	Known int `json:"known"`
}

// signals gathers Signals from the ranked candidates (non-archived, in
// ranking order), their dense scores summed in that order.
func signals(q query, cands []Breakdown) Signals {
	var ds denseSums
	for _, b := range cands {
		if b.Dense != nil {
			ds.add(*b.Dense)
		}
	}
	return signalsSummed(q, cands, &pool{bs: cands}, ds)
}

// denseSums are the sums of the candidates' dense scores and of their
// squares. Rank adds them in doc order, so that a ranking whose tail is
// not in order (Options.Head) gives the same bits as a full one.
type denseSums struct {
	sum, sum2 float64
	n         int
}

func (ds *denseSums) add(d float64) {
	ds.sum += d
	ds.sum2 += d * d
	ds.n++
}

// signalsSummed is signals of the ranking's head (cands, in order) and
// all its candidates (f), with the dense sums given.
func signalsSummed(q query, cands []Breakdown, f *pool, ds denseSums) Signals {
	s := Signals{Skills: f.size(), Terms: q.nterms, Known: q.known}
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
	if len(cands) > 0 {
		lead := cands[0]
		f.each(func(c cand) {
			s.Lexical = math.Max(s.Lexical, c.lex)
			lex, dense := standing(lead, c)
			s.LeadLexRank += b2i(lex)
			s.LeadDenseRank += b2i(dense)
			if c.dense != nil {
				s.Dense = math.Max(s.Dense, *c.dense)
			}
		})
	}
	if n := ds.n; n > 0 {
		s.DenseMean = ds.sum / float64(n)
		s.DenseSD = math.Sqrt(math.Max(0, ds.sum2/float64(n)-s.DenseMean*s.DenseMean))
	}
	if len(cands) > 0 && cands[0].Dense != nil {
		s.LeadDense = *cands[0].Dense
	}
	return s
}

// standing says whether c beats lead on lexical score alone and on dense
// score alone (a candidate never beats itself).
func standing(lead Breakdown, c cand) (lex, dense bool) {
	return c.lex > lead.Lexical, lead.Dense != nil && c.dense != nil && *c.dense > *lead.Dense
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// leadRanks sets the leader's own dense score and its rank in each
// channel alone, for the candidate at rank i as the leader.
func (s *Signals) leadRanks(cands []Breakdown, i int, f *pool) {
	lead := cands[i]
	s.LeadDense, s.LeadDenseRank, s.LeadLexRank = 0, 0, 0
	if lead.Dense != nil {
		s.LeadDense = *lead.Dense
	}
	f.each(func(c cand) {
		lex, dense := standing(lead, c)
		s.LeadLexRank += b2i(lex)
		s.LeadDenseRank += b2i(dense)
	})
}

// asLeader is s as it would be if the candidate at rank i (from 0) led:
// its own scores, and its margins to what ranks below it. cands are the
// ranking's head, in order, past i; f all the candidates (nil: cands).
func (s Signals) asLeader(cands []Breakdown, i int, f *pool) Signals {
	if f == nil {
		f = &pool{bs: cands}
	}
	b := cands[i]
	s.Top, s.Lexical, s.Dense = b.Final, b.Lexical, 0
	if b.Dense != nil {
		s.Dense = *b.Dense
	}
	s.Second = 0
	if i+1 < len(cands) {
		s.Second = cands[i+1].Final
	}
	s.leadRanks(cands, i, f)
	return s
}
