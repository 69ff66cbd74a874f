package route

import (
	"slices"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/index"
)

// Semantic is the dense channel over stored vectors: the prompt is
// embedded by Embed (the model's query side) and compared with every
// skill's rows. The hook, route, why and serve all score through it, so
// they agree.
type Semantic struct {
	Model string // the model's id, for reports
	Vecs  *index.Vectors
	Prof  DenseProfile
	Embed func(text string) ([]float32, error)
}

// Scores implements Dense.
func (s *Semantic) Scores(prompt string) ([]float64, error) {
	q, err := s.Embed(prompt)
	if err != nil {
		return nil, err
	}
	return s.Vecs.Scores(q), nil
}

// ScoresWithContexts implements ContextDense: the documents' scores and
// their contexts' similarities, the prompt embedded once.
func (s *Semantic) ScoresWithContexts(prompt string) ([]float64, *ranker.ContextScores, error) {
	q, err := s.Embed(prompt)
	if err != nil {
		return nil, nil, err
	}
	return s.Vecs.Scores(q), s.Vecs.ContextScores(q, s.Prof.AbsFloor), nil
}

// onePassBytes is the size of the vectors above which scoring several
// prompts in one pass over them pays (manyDense): beyond the share of a
// processor's cache a process gets, about 4,000 skills of the built-in
// model's 256 dimensions.
var onePassBytes = 8 << 20

// onePass implements manyDense.
func (s *Semantic) onePass() bool { return s.Vecs != nil && 4*len(s.Vecs.Rows) > onePassBytes }

// scoresMany implements manyDense: each text's scores and its contexts',
// each text embedded once and every text scored in one pass.
func (s *Semantic) scoresMany(texts []string) []denseScores {
	out := make([]denseScores, len(texts))
	var qs [][]float32
	at := make([]int, len(texts)) // each text's vector in qs
	for i, t := range texts {
		if j := slices.Index(texts[:i], t); j >= 0 {
			at[i], out[i].err = at[j], out[j].err
			continue
		}
		q, err := s.Embed(t)
		if err != nil {
			out[i].err = err
			continue
		}
		at[i] = len(qs)
		qs = append(qs, q)
	}
	scores := s.Vecs.ScoresMany(qs)
	ctx := make([]*ranker.ContextScores, len(qs))
	for k, q := range qs {
		ctx[k] = s.Vecs.ContextScores(q, s.Prof.AbsFloor)
	}
	for i := range out {
		if out[i].err == nil {
			out[i].scores, out[i].ctx = scores[at[i]], ctx[at[i]]
		}
	}
	return out
}

// DenseProfile implements Dense.
func (s *Semantic) DenseProfile() DenseProfile { return s.Prof }

// Similar implements SimilarDense: the stored rows' cosine, nothing
// embedded, and the model's duplicate cosine.
func (s *Semantic) Similar() (func(a, b int) float64, float64) {
	if s.Vecs == nil || s.Prof.DupCos <= 0 {
		return nil, 0
	}
	return s.Vecs.Cosine, s.Prof.DupCos
}

// Parts returns the two cosines behind one document's semantic score.
func (s *Semantic) Parts(prompt string, doc int) (full, name float64, err error) {
	q, err := s.Embed(prompt)
	if err != nil {
		return 0, 0, err
	}
	full, name = s.Vecs.Parts(q, doc)
	return full, name, nil
}
