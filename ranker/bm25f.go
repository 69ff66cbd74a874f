package ranker

import (
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// field indexes the BM25F fields of a Doc.
type field int

const (
	fieldName field = iota
	fieldDescription
	fieldHeadings
	fieldTriggers
	fieldContexts
	fieldBody
	numFields
)

// posting is one doc's pseudo term frequency for a term: the field-weighted,
// length-normalised sum of its per-field counts (simple BM25F), computed once
// at build time so a query only saturates and sums.
type posting struct {
	doc int32
	tf  float32
}

// entry is one component of a sparse TF-IDF vector.
type entry struct {
	term int32
	w    float32
}

// svec is a sparse, L2-normalised TF-IDF vector sorted by term id.
type svec []entry

// Index is an immutable, query-ready view of a set of skills. Build it once
// per registry load with NewIndex; Rank is safe for concurrent use.
type Index struct {
	docs []Doc
	cfg  Config
	// terms maps each index term to its id while NewIndex builds the
	// index; an index restored from a snapshot finds a term in termHash
	// (typoTable's table over termList, the terms in id order) instead:
	// filling a map of every term costs more than the prompt's few lookups.
	terms    map[string]int32
	termList []string
	termHash []uint32
	idf      []float64
	// idfOOV is the idf of a term no skill contains (df = 0).
	idfOOV   float64
	postings [][]posting
	// docVec is each skill's text as a TF-IDF vector, for MMR.
	docVec []svec
	// help, harm, relHelp and relHarm are per-skill context and verdict
	// reason vectors for the blend's similarity terms.
	help, harm, relHelp, relHarm [][]svec
	// typoWords are the catalog words an unknown prompt word may be
	// corrected to, sorted, and typoTerms their terms (see Typos).
	typoWords []string
	typoTerms []int32
	typoHash  []uint32
	// dict holds the words of the language, never corrected (nil: none).
	dict func(word string) bool
}

// termID is term t's id, if some skill has it.
func (ix *Index) termID(t string) (int32, bool) {
	if ix.terms != nil {
		id, ok := ix.terms[t]
		return id, ok
	}
	if k := lookupWord(ix.termHash, ix.termList, t); k >= 0 {
		return int32(k), true
	}
	return 0, false
}

// NewIndex tokenises every skill and precomputes BM25F statistics and the
// vectors the blend and MMR need.
func NewIndex(docs []Doc, cfg Config) *Index {
	n := len(docs)
	ix := &Index{docs: docs, cfg: cfg, terms: map[string]int32{}}
	id := func(t string) int32 {
		if v, ok := ix.terms[t]; ok {
			return v
		}
		v := int32(len(ix.terms))
		ix.terms[t] = v
		return v
	}
	// Per doc, per field term counts.
	type counts map[int32]int
	fieldTF := make([][numFields]counts, n)
	var lenSum [numFields]float64
	lens := make([][numFields]float64, n)
	docTerms := make([]map[int32]int, n)
	memo := stems{}
	vocabWords := typoVocab{}
	var bodies [][]TermCount
	if cfg.Fields.Body.Weight > 0 {
		bodies = allBodyTerms(docs)
	}
	// The prompts learnt from history extend the contexts field, each term
	// counting Blend.Learnt of a verdict context's (its length too).
	learntW := cfg.Blend.Learnt
	var learntTF []map[int32]float64
	for i, d := range docs {
		texts := [numFields][]string{
			{strings.ReplaceAll(d.ID, "-", " ")},
			{d.Description},
			d.Headings,
			d.Triggers,
			d.HelpfulContexts,
			nil, // the body: its terms, below
		}
		docTerms[i] = map[int32]int{}
		for f := field(0); f < numFields; f++ {
			c := counts{}
			for _, s := range texts[f] {
				words(s, func(w string) {
					t := memo.stem(w)
					if t == "" {
						return
					}
					tid := id(t)
					c[tid]++
					lens[i][f]++
					if f < fieldContexts {
						vocabWords.add(cfg.Typos.MinLen, w, tid)
					}
				})
			}
			if f == fieldBody && bodies != nil {
				for _, tc := range bodies[i] {
					c[id(tc.Term)] += tc.N
					lens[i][f] += float64(tc.N)
				}
			}
			fieldTF[i][f] = c
			if f == fieldContexts && learntW > 0 && len(d.Learnt) > 0 {
				if learntTF == nil {
					learntTF = make([]map[int32]float64, n)
				}
				lc := map[int32]float64{}
				for _, s := range d.Learnt {
					words(s, func(w string) {
						if t := memo.stem(w); t != "" {
							lc[id(t)] += learntW
							lens[i][f] += learntW
						}
					})
				}
				learntTF[i] = lc
			}
			lenSum[f] += lens[i][f]
			// The body finds a skill; MMR's likeness of two skills stays
			// with what they say they are.
			if f != fieldContexts && f != fieldBody {
				for t, k := range c {
					docTerms[i][t] += k
				}
			}
		}
	}
	vocab := len(ix.terms)
	df := make([]int, vocab)
	for i := range docs {
		seen := map[int32]bool{}
		for f := field(0); f < numFields; f++ {
			for t := range fieldTF[i][f] {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
		if learntTF != nil {
			for t := range learntTF[i] {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
	}
	params := [numFields]Field{cfg.Fields.Name, cfg.Fields.Description, cfg.Fields.Headings, cfg.Fields.Triggers, cfg.Fields.Contexts, cfg.Fields.Body}
	ix.postings = make([][]posting, vocab)
	for i := range docs {
		pseudo := map[int32]float64{}
		for f := field(0); f < numFields; f++ {
			p := params[f]
			if p.Weight == 0 {
				continue
			}
			norm := 1.0
			if avg := lenSum[f] / float64(n); avg > 0 {
				norm = 1 - p.B + p.B*lens[i][f]/avg
			}
			for t, k := range fieldTF[i][f] {
				pseudo[t] += p.Weight * float64(k) / norm
			}
			if f == fieldContexts && learntTF != nil {
				for t, k := range learntTF[i] {
					pseudo[t] += p.Weight * k / norm
				}
			}
		}
		for _, t := range sortedKeys(pseudo) {
			if w := pseudo[t]; w > 0 {
				ix.postings[t] = append(ix.postings[t], posting{doc: int32(i), tf: float32(w)})
			}
		}
	}
	ix.idfOOV = bm25IDF(n, 0)
	// Terms that only occur in harmful contexts or verdict reasons get an
	// id when their vectors are built below; they have df = 0.
	ix.docVec = make([]svec, n)
	ix.help = make([][]svec, n)
	ix.harm = make([][]svec, n)
	ix.relHelp = make([][]svec, n)
	ix.relHarm = make([][]svec, n)
	idfOf := func(t int32) float64 {
		if int(t) < vocab {
			return bm25IDF(n, df[t])
		}
		return ix.idfOOV
	}
	vec := func(text string) svec {
		c := map[int32]int{}
		for _, t := range memo.tokenize(text) {
			c[id(t)]++
		}
		return tfidf(c, idfOf)
	}
	for i, d := range docs {
		ix.docVec[i] = tfidf(docTerms[i], idfOf)
		for _, s := range d.HelpfulContexts {
			ix.help[i] = append(ix.help[i], vec(s))
		}
		for _, s := range d.HarmfulContexts {
			ix.harm[i] = append(ix.harm[i], vec(s))
		}
		for _, r := range d.Related {
			if r.Helpful {
				ix.relHelp[i] = append(ix.relHelp[i], vec(r.Text))
			} else {
				ix.relHarm[i] = append(ix.relHarm[i], vec(r.Text))
			}
		}
	}
	ix.idf = make([]float64, len(ix.terms))
	for t := range ix.idf {
		ix.idf[t] = idfOf(int32(t))
	}
	ix.typoWords, ix.typoTerms = vocabWords.sorted()
	ix.typoHash = typoTable(ix.typoWords)
	return ix
}

// Docs returns the skills the index was built from, in their original order.
func (ix *Index) Docs() []Doc { return ix.docs }

// TermCount is one index term of a text and how often it occurs.
type TermCount struct {
	Term string
	N    int
}

// FillBodyTerms sets the BodyTerms of every doc that has none, on every
// core: a registry's bodies are most of its text, and whoever keeps docs
// between index builds keeps their terms with them, so a rebuild reads
// only the bodies that changed.
func FillBodyTerms(docs []Doc) {
	terms := allBodyTerms(docs)
	for i := range docs {
		docs[i].BodyTerms = terms[i]
	}
}

// allBodyTerms is each doc's BodyTerms, computed from its body where the
// doc has none.
func allBodyTerms(docs []Doc) [][]TermCount {
	out := make([][]TermCount, len(docs))
	var todo []int
	for i, d := range docs {
		if out[i] = d.BodyTerms; out[i] == nil && d.Body != "" {
			todo = append(todo, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			memo := stems{}
			for k := w; k < len(todo); k += workers {
				out[todo[k]] = bodyTerms(memo, docs[todo[k]].Body)
			}
		})
	}
	wg.Wait()
	return out
}

// bodyTerms is a body's BodyTerms most frequent terms, most frequent
// first, ties by the term.
func bodyTerms(memo stems, body string) []TermCount {
	// Count each word, then stem each distinct word once: a body repeats
	// its words, and the index is rebuilt from every body.
	seen := map[string]int{}
	words(body, func(w string) { seen[w]++ })
	counts := make(map[string]int, len(seen))
	for w, n := range seen {
		if t := memo.stem(w); t != "" {
			counts[t] += n
		}
	}
	out := make([]TermCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TermCount{t, n})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].N != out[b].N {
			return out[a].N > out[b].N
		}
		return out[a].Term < out[b].Term
	})
	return out[:min(len(out), BodyTerms)]
}

// bm25IDF is the non-negative BM25 idf, ln(1 + (N - df + 0.5)/(df + 0.5)).
func bm25IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// tfidf builds an L2-normalised (1 + ln tf) * idf vector.
func tfidf(c map[int32]int, idf func(int32) float64) svec {
	v := make(svec, 0, len(c))
	var norm float64
	for _, t := range sortedKeys(c) {
		w := (1 + math.Log(float64(c[t]))) * idf(t)
		if w <= 0 {
			continue
		}
		v = append(v, entry{term: t, w: float32(w)})
		norm += w * w
	}
	if norm == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(norm)
	for k := range v {
		v[k].w = float32(float64(v[k].w) * inv)
	}
	return v
}

// cosine is the dot product of two normalised sparse vectors, in [0, 1].
func cosine(a, b svec) float64 {
	var s float64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].term < b[j].term:
			i++
		case a[i].term > b[j].term:
			j++
		default:
			s += float64(a[i].w) * float64(b[j].w)
			i++
			j++
		}
	}
	return math.Min(1, s)
}

// maxCosine is the best similarity of q to any vector in vs (0 if none).
func maxCosine(q svec, vs []svec) float64 {
	best := 0.0
	for _, v := range vs {
		best = math.Max(best, cosine(q, v))
	}
	return best
}

// sortedKeys returns a map's keys in increasing order so that iteration
// never leaks map order into scores.
func sortedKeys[V any](m map[int32]V) []int32 {
	ks := make([]int32, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// query is a tokenised query: its known term ids with their idf, the
// normaliser for BM25F scores and its TF-IDF vector.
type query struct {
	terms []int32
	// idf is each term's idf as it scores: a corrected word's at
	// Typos.Weight.
	idf []float64
	// maxScore is the query's maximum attainable BM25F score,
	// sum of idf * (k1 + 1) over its distinct terms.
	maxScore float64
	vec      svec
	// empty is true when the query has no content terms at all.
	empty bool
	// nterms counts its distinct content terms, known or not, and known
	// those some skill contains (of a long prompt, its request's).
	nterms, known int
	// now is when the query is asked (Options.Now): the evidence's age is
	// counted to it.
	now time.Time
}

// parse reads a prompt against the index vocabulary. Terms no skill
// contains still count in maxScore and the vector norm: a query made mostly
// of words the registry has never seen is, rightly, a weak match. A
// corrected word stands for its catalog term, at Typos.Weight of its idf,
// unless the prompt names that term itself. A long prompt's terms weigh
// what their sentences do (Prompt.weights, ReadWith): the idf is scaled by
// that weight everywhere the query uses it (the BM25F sum, the attainable
// maximum, the vector), and the prompt's length, as the gate reads it
// (Signals.Terms, Known), is its request's: the gate was fitted on prompts
// that are all request.
func (ix *Index) parse(p Prompt) query {
	toks := p.terms
	q := query{empty: len(toks) == 0}
	var norm float64
	have := make(map[int32]bool, len(toks))
	for _, t := range toks {
		if id, ok := ix.termID(t); ok {
			have[id] = true
		}
	}
	for i, t := range toks {
		idf, weight := ix.idfOOV, 1.0
		id, ok := ix.termID(t)
		if c := p.correction(t); !ok && c != nil {
			if have[c.term] {
				continue // a repeat of a word the prompt names
			}
			id, ok, weight = c.term, true, ix.cfg.Typos.Weight
			have[id] = true
		}
		if ok {
			idf = ix.idf[id]
		}
		full := p.weights == nil || p.weights[i] == 1
		if !full {
			idf *= p.weights[i]
		}
		if full {
			q.nterms++
		}
		if ok {
			q.terms = append(q.terms, id)
			q.idf = append(q.idf, weight*idf)
			if full {
				q.known++
			}
		}
		norm += idf * idf
		// A term no skill contains still counts in the maximum: a prompt
		// mostly about something else scores low even if one word matches.
		q.maxScore += idf * (ix.cfg.K1 + 1)
	}
	if norm > 0 {
		inv := 1 / math.Sqrt(norm)
		order := make([]int, len(q.terms))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return q.terms[order[a]] < q.terms[order[b]] })
		for _, k := range order {
			q.vec = append(q.vec, entry{term: q.terms[k], w: float32(q.idf[k] * inv)})
		}
	}
	return q
}

// plainPrompt is text's terms without corrections.
func plainPrompt(text string) Prompt {
	return Prompt{Text: text, terms: uniqueTerms(Tokenize(text))}
}

// lexical adds each doc's raw BM25F score for q into raw (len = #docs).
func (ix *Index) lexical(q query, raw []float64) {
	k1 := ix.cfg.K1
	for i, t := range q.terms {
		if int(t) >= len(ix.postings) {
			continue // only in harmful contexts or verdict reasons
		}
		idf := q.idf[i]
		for _, p := range ix.postings[t] {
			tf := float64(p.tf)
			raw[p.doc] += idf * tf * (k1 + 1) / (tf + k1)
		}
	}
}
