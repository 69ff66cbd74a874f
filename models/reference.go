package models

import (
	"errors"
	"fmt"
	"math"
)

// ErrBehaviour: a downloaded model does not embed its profile's reference
// sentences as the model the profile describes does.
var ErrBehaviour = errors.New("model does not behave as its profile records")

// Reference is how `megagit model pull` checks a model file whose sha256
// could not be recorded: a few fixed sentences, the first components of
// each one's vector and every pair's cosine, as the model the profile
// describes gives them. A download is the right model when it embeds the
// sentences within the tolerances; another model, a damaged or a randomly
// initialised file does not. Unlike a digest it cannot rule out a file
// crafted to give these vectors and behave differently elsewhere.
type Reference struct {
	Sentences []string    `json:"sentences"`
	Head      [][]float32 `json:"head"`    // per sentence, the first components of its vector (documents' side)
	Cosines   []float64   `json:"cosines"` // cos(i, j) for i < j: (0,1), (0,2), ..., (1,2), ...
	HeadTol   float64     `json:"head_tolerance"`
	CosineTol float64     `json:"cosine_tolerance"`
	Source    string      `json:"source,omitempty"` // the files the vectors were computed from
}

// NewReference records emb's vectors of sentences: the first head
// components of each and every pair's cosine, with the given tolerances.
func NewReference(emb Embedder, sentences []string, head int, headTol, cosTol float64) (Reference, error) {
	vecs, err := emb.Embed(sentences, Document)
	if err != nil {
		return Reference{}, err
	}
	r := Reference{Sentences: sentences, HeadTol: headTol, CosineTol: cosTol}
	for _, v := range vecs {
		r.Head = append(r.Head, append([]float32(nil), v[:min(head, len(v))]...))
	}
	r.Cosines = pairCosines(vecs)
	return r, nil
}

// Check embeds the reference sentences with emb and returns nil when every
// recorded component and cosine is matched within its tolerance, else an
// error wrapping ErrBehaviour naming the worst difference.
func (r Reference) Check(emb Embedder) error {
	if len(r.Sentences) < 2 || len(r.Head) != len(r.Sentences) || len(r.Cosines) != len(r.Sentences)*(len(r.Sentences)-1)/2 {
		return fmt.Errorf("%w: the profile's reference is incomplete", ErrBehaviour)
	}
	vecs, err := emb.Embed(r.Sentences, Document)
	if err != nil {
		return fmt.Errorf("%w: embedding the reference sentences: %w", ErrBehaviour, err)
	}
	worst, what := 0.0, ""
	// note keeps the largest difference relative to its tolerance; NaN
	// counts as infinitely far.
	note := func(d, tol float64, msg string) {
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if d/tol > worst {
			worst, what = d/tol, msg
		}
	}
	for i, head := range r.Head {
		v := vecs[i]
		if len(v) < len(head) {
			return fmt.Errorf("%w: a %d-dimensional vector, the reference has %d components", ErrBehaviour, len(v), len(head))
		}
		for j, want := range head {
			note(math.Abs(float64(v[j])-float64(want)), r.HeadTol,
				fmt.Sprintf("component %d of the vector of %q is %.4f, the reference %.4f (tolerance %g)", j, r.Sentences[i], v[j], want, r.HeadTol))
		}
	}
	got := pairCosines(vecs)
	k := 0
	for i := range r.Sentences {
		for j := i + 1; j < len(r.Sentences); j++ {
			note(math.Abs(got[k]-r.Cosines[k]), r.CosineTol,
				fmt.Sprintf("the cosine of %q and %q is %.4f, the reference %.4f (tolerance %g)", r.Sentences[i], r.Sentences[j], got[k], r.Cosines[k], r.CosineTol))
			k++
		}
	}
	if worst > 1 {
		return fmt.Errorf("%w: %s", ErrBehaviour, what)
	}
	return nil
}

// pairCosines is cos(i, j) for every i < j, in order.
func pairCosines(vecs [][]float32) []float64 {
	var out []float64
	for i := range vecs {
		for j := i + 1; j < len(vecs); j++ {
			out = append(out, cosine(vecs[i], vecs[j]))
		}
	}
	return out
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range min(len(a), len(b)) {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
