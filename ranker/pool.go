package ranker

// pool is every candidate of one ranking (the skills neither archived,
// out nor denied), in no particular order: what the signals, the gate's
// look at a backup and the lexical fast path read of all of them, beyond
// the head of the ranking. It is either the candidates' breakdowns (a
// full ranking, in its order) or, when only the head was ranked
// (Options.Head), a few numbers per doc: every skill's breakdown would
// be megabytes of fresh memory at thousands of skills, and each fresh
// page costs the short-lived hook process a page fault.
type pool struct {
	bs []Breakdown
	// Per doc, when bs is nil: the ranking keys (archived: excluded),
	// and the lexical, raw BM25F, relevance and dense scores (dense nil:
	// no dense channel).
	keys                 []rankKey
	lex, raw, rel, dense []float64
	n                    int // candidates
}

// cand is one candidate as a field gives it.
type cand struct {
	doc           int
	id            string
	lex, raw, rel float64
	dense         *float64
}

// size is the number of candidates.
func (f *pool) size() int {
	if f.bs != nil || f.keys == nil {
		return len(f.bs)
	}
	return f.n
}

// each calls fn with every candidate.
func (f *pool) each(fn func(c cand)) {
	if f.keys == nil {
		for _, b := range f.bs {
			fn(cand{doc: b.Doc, id: b.ID, lex: b.Lexical, raw: b.LexicalRaw, rel: b.Relevance, dense: b.Dense})
		}
		return
	}
	for i, k := range f.keys {
		if k.archived {
			continue
		}
		c := cand{doc: i, id: k.id, lex: f.lex[i], raw: f.raw[i], rel: f.rel[i]}
		if f.dense != nil {
			c.dense = &f.dense[i]
		}
		fn(c)
	}
}

// matched reports whether doc is a candidate the prompt matches in a
// channel (candidate's rule, with the dense channel's floor).
func (f *pool) matched(doc int, denseFloor float64) bool {
	if f.keys != nil {
		if doc < 0 || doc >= len(f.keys) || f.keys[doc].archived {
			return false
		}
		b := Breakdown{Relevance: f.rel[doc], Lexical: f.lex[doc]}
		if f.dense != nil {
			b.Dense = &f.dense[doc]
		}
		return candidate(b, denseFloor)
	}
	for _, b := range f.bs {
		if b.Doc == doc {
			return candidate(b, denseFloor)
		}
	}
	return false
}
