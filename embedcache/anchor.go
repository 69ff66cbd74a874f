package embedcache

import (
	"errors"
	"fmt"
	"math"

	"github.com/megagit/megagit/models"
)

// The drift anchor guards against embedding drift, vectors of two builds
// of "one" model scored against each other: a fixed sentence embedded by the
// model that wrote a cache and stored in it. Re-embedding the sentence with
// the model routing uses now and comparing the two vectors tells a cache
// written by another build of the "same" model (an ONNX file swapped under
// one id, a retrained table without a new fingerprint) from a sound one.
//
// The anchor is stored as one more row: index.json names it with skill
// AnchorSkill (".anchor", which no skill id can be) and field AnchorField,
// and its vector is a row of vectors.npy like any other. vectors.npy stays a
// plain rows x dim array whose rows index.json names one by one, so a numpy
// user who pairs the two files sees what the row is (and drops skill
// ".anchor"); and the anchor travels with the rows through every path that
// copies rows (embed, sync's row-by-row merge, float16 rounding).
const (
	AnchorText  = "deploy the web service to production and roll back when the health check fails"
	AnchorSkill = ".anchor"
	AnchorField = "anchor"
	// DriftThreshold is the cosine below which the anchor says the cache
	// was written by a different model: the same model gives the same
	// sentence a cosine of 1 (0.99+ through float16), another build of it
	// falls well below.
	DriftThreshold = 0.90
)

var (
	anchorSHA = TextSHA(AnchorText)
	anchorRow = Row{Skill: AnchorSkill, Field: AnchorField, SHA256: anchorSHA}
)

// EmbedAnchor embeds the anchor sentence with e, as a document.
func EmbedAnchor(e models.Embedder) ([]float32, error) {
	vecs, err := e.Embed([]string{AnchorText}, models.Document)
	if err != nil {
		return nil, fmt.Errorf("embed the drift anchor with %s: %w", e.ID(), err)
	}
	if len(vecs) != 1 || len(vecs[0]) != e.Dim() {
		return nil, fmt.Errorf("embed the drift anchor with %s: unexpected output shape", e.ID())
	}
	if l2norm(vecs[0]) == 0 {
		return nil, errors.New("the drift anchor embeds to a zero vector")
	}
	return vecs[0], nil
}

// Anchor returns a copy of the cache's anchor vector; false for a cache
// written before anchors existed.
func (c *Cache) Anchor() ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.byKey[anchorRow.key()]
	if !ok || c.rows[i].SHA256 != anchorSHA {
		return nil, false
	}
	return append([]float32(nil), c.vecs[i]...), true
}

// SetAnchor stores the anchor vector (of the model the cache's rows come
// from); a vector of the wrong length is dropped, as Put drops it.
func (c *Cache) SetAnchor(vec []float32) {
	c.Put(anchorRow, vec)
}

// ensureAnchor gives a cache that has none the anchor of e; a model that
// cannot embed it leaves the cache without one (verify reports "no anchor").
func (c *Cache) ensureAnchor(e models.Embedder) {
	if _, ok := c.Anchor(); ok {
		return
	}
	if v, err := EmbedAnchor(e); err == nil {
		c.SetAnchor(v)
	}
}

// Drift is the verdict of the anchor check.
type Drift struct {
	Cosine  float64 // between the stored anchor and a fresh embedding
	Drifted bool    // Cosine < DriftThreshold: the cache must be rebuilt
}

// CheckDrift re-embeds the anchor with e and compares it with stored.
func CheckDrift(e models.Embedder, stored []float32) (Drift, error) {
	fresh, err := EmbedAnchor(e)
	if err != nil {
		return Drift{}, err
	}
	cos := Cosine(stored, fresh)
	return Drift{Cosine: cos, Drifted: cos < DriftThreshold}, nil
}

// Cosine is the cosine similarity of two vectors; 0 when either is zero or
// the lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	na, nb := l2norm(a), l2norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d / (na * nb)
}

func l2norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
