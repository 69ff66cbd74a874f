package index

import (
	"math"
	"runtime"

	"github.com/megagit/megagit/ranker"
)

// Vectors are a semantic model's vectors of every skill, as the compiled
// index stores them: two rows per document, row 2i its name and
// description, row 2i+1 its name alone (semantic = the larger cosine),
// each Dim float32s, L2-normalised. Key names the model build that made
// them (its embedding-cache key), so rows of another model are never
// scored against this model's prompt vector.
//
// Ctx and CtxRows are the vectors of the skills' helpful and harmful
// contexts (the prompts of past sessions that judged them), one row each,
// Ctx[k] saying whose row CtxRows[k·Dim:] is: what routing learnt from use
// matches a prompt in other words than the past one.
type Vectors struct {
	Key     string
	Dim     int
	Rows    []float32
	Ctx     []CtxRow
	CtxRows []float32
}

// CtxRow says whose context a row of Vectors.CtxRows is.
type CtxRow struct {
	Doc  int32
	Harm bool // a harmful context, else a helpful one
	// Reason marks the reason of a past verdict (the related-verdict term)
	// rather than a session's prompt.
	Reason bool
	// Learnt marks a prompt learnt from the agents' history (Doc.Learnt).
	Learnt bool
}

// Docs is how many documents the rows cover.
func (v *Vectors) Docs() int {
	if v == nil || v.Dim <= 0 {
		return 0
	}
	return len(v.Rows) / (2 * v.Dim)
}

// Parts returns the two cosines behind document doc's semantic score.
func (v *Vectors) Parts(q []float32, doc int) (full, name float64) {
	return v.dot(q, 2*doc), v.dot(q, 2*doc+1)
}

// Cosine is the cosine of two documents' name and description rows
// (row 2a, row 2b): how alike two skills are to the model, for MMR and
// lint's duplicates, from the stored vectors (nothing embedded).
func (v *Vectors) Cosine(a, b int) float64 {
	n := v.Docs()
	if a < 0 || b < 0 || a >= n || b >= n {
		return 0
	}
	return dotRow(v.Rows[2*a*v.Dim:(2*a+1)*v.Dim], v.Rows[2*b*v.Dim:(2*b+1)*v.Dim])
}

// Scores is every document's semantic score for the prompt vector q:
// the larger of its two cosines.
func (v *Vectors) Scores(q []float32) []float64 {
	return v.ScoresMany([][]float32{q})[0]
}

// ScoresMany is Scores of each prompt vector, in one pass over the rows:
// at thousands of skills the rows are tens of megabytes, and reading them
// is most of the work, so each is read once for every prompt while it is
// in the cache. Large catalogs are split between the cores.
func (v *Vectors) ScoresMany(qs [][]float32) [][]float64 {
	n := v.Docs()
	out := make([][]float64, len(qs))
	for k := range out {
		out[k] = make([]float64, n)
	}
	run := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k, q := range qs {
				out[k][i] = math.Max(v.dot(q, 2*i), v.dot(q, 2*i+1))
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), n/scoreChunk+1)
	per := (n + workers - 1) / workers
	waits := make([]func(), 0, workers)
	for w := 1; w < workers; w++ {
		lo := w * per
		waits = append(waits, goSafe(func() { run(lo, min(lo+per, n)) }))
	}
	run(0, min(per, n))
	for _, wait := range waits {
		wait()
	}
	return out
}

// scoreChunk is how many documents' rows (two of Dim float32s each) are
// worth a goroutine of their own: a few megabytes.
const scoreChunk = 2048

// ContextScores is every document's best similarity of the prompt vector
// q to its helpful and to its harmful contexts, and to the reasons of its
// helpful and harmful verdicts. A cosine counts only above
// floor, the level the model's cosines reach for unrelated texts (its
// profile's floor), rescaled to [0, 1]: unrelated prompts share a
// background similarity with past ones that is no evidence. Nil when no
// skill has a context.
func (v *Vectors) ContextScores(q []float32, floor float64) *ranker.ContextScores {
	if v == nil || len(v.Ctx) == 0 || len(q) != v.Dim {
		return nil
	}
	n := v.Docs()
	cs := &ranker.ContextScores{Help: make([]float64, n), Harm: make([]float64, n)}
	floor = min(max(floor, 0), 0.99)
	for k, c := range v.Ctx {
		if (k+1)*v.Dim > len(v.CtxRows) {
			break
		}
		if int(c.Doc) >= n {
			continue
		}
		s := max(0, (dotRow(q, v.CtxRows[k*v.Dim:(k+1)*v.Dim])-floor)/(1-floor))
		var to []float64
		switch {
		case c.Learnt:
			if cs.Learnt == nil {
				cs.Learnt = make([]float64, n)
			}
			to = cs.Learnt
		case c.Reason && c.Harm:
			if cs.RelHarm == nil {
				cs.RelHarm = make([]float64, n)
			}
			to = cs.RelHarm
		case c.Reason:
			if cs.RelHelp == nil {
				cs.RelHelp = make([]float64, n)
			}
			to = cs.RelHelp
		case c.Harm:
			to = cs.Harm
		default:
			to = cs.Help
		}
		to[c.Doc] = max(to[c.Doc], s)
	}
	return cs
}

// dot is the cosine of q and row r (both normalised), summed in float32
// over four lanes: thousands of skills are scored per prompt, and
// independent sums let the processor overlap the multiplications.
func (v *Vectors) dot(q []float32, r int) float64 {
	if len(q) != v.Dim {
		return 0
	}
	return dotRow(q, v.Rows[r*v.Dim:(r+1)*v.Dim])
}

// dotRow is the dot product of q and row (of q's length).
func dotRow(q, row []float32) float64 {
	q = q[:len(row)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(row); i += 4 {
		s0 += q[i] * row[i]
		s1 += q[i+1] * row[i+1]
		s2 += q[i+2] * row[i+2]
		s3 += q[i+3] * row[i+3]
	}
	for ; i < len(row); i++ {
		s0 += q[i] * row[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}
