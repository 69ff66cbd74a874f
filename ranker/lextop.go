package ranker

import "slices"

// LexicalScorer finds the docs with the highest raw BM25F scores for a
// text, touching only the docs that share a term with it. It is for mining
// among very many documents (the static model trainer's hard negatives),
// where Rank's breakdown of every doc would cost too much. It keeps one
// score per doc between calls: make one per goroutine.
type LexicalScorer struct {
	ix *Index
	// MaxPostings, when positive, ignores the text's terms found in more
	// docs than this: they are nearly stopwords among many documents and
	// would make every query touch most of them.
	MaxPostings int
	raw         []float64
	touched     []int32
}

// NewLexicalScorer returns a scorer over ix's docs.
func (ix *Index) NewLexicalScorer() *LexicalScorer {
	return &LexicalScorer{ix: ix, raw: make([]float64, len(ix.docs))}
}

// Top returns up to k docs with a positive raw BM25F score for text, best
// first, ties by doc order, leaving out the docs skip reports true for
// (skip may be nil).
func (s *LexicalScorer) Top(text string, k int, skip func(doc int) bool) []int {
	if k <= 0 {
		return nil
	}
	ix := s.ix
	q := ix.parse(plainPrompt(text)) // mining reads words as written
	k1 := ix.cfg.K1
	s.touched = s.touched[:0]
	for i, t := range q.terms {
		if int(t) >= len(ix.postings) {
			continue
		}
		ps := ix.postings[t]
		if s.MaxPostings > 0 && len(ps) > s.MaxPostings {
			continue
		}
		idf := q.idf[i]
		for _, p := range ps {
			if s.raw[p.doc] == 0 {
				s.touched = append(s.touched, p.doc)
			}
			tf := float64(p.tf)
			s.raw[p.doc] += idf * tf * (k1 + 1) / (tf + k1)
		}
	}
	// Keep the best k in order: score descending, then doc ascending.
	var best []int
	better := func(a, b int) bool {
		if s.raw[a] != s.raw[b] {
			return s.raw[a] > s.raw[b]
		}
		return a < b
	}
	for _, d := range s.touched {
		doc := int(d)
		if s.raw[doc] <= 0 || (skip != nil && skip(doc)) {
			continue
		}
		if len(best) == k && !better(doc, best[k-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, doc, func(e, t int) int {
			if better(e, t) {
				return -1
			}
			return 1
		})
		if len(best) == k {
			best = best[:k-1]
		}
		best = slices.Insert(best, at, doc)
	}
	for _, d := range s.touched {
		s.raw[d] = 0
	}
	return best
}
