package route

import (
	"testing"

	"github.com/megagit/megagit/route/index"
)

// TestSemanticSimilar: MMR compares skills by their stored rows only with
// a model whose duplicate cosine was measured.
func TestSemanticSimilar(t *testing.T) {
	v := &index.Vectors{Dim: 2, Rows: []float32{1, 0, 0, 1, 0.6, 0.8, 1, 0}}
	s := &Semantic{Vecs: v, Prof: DenseProfile{DupCos: 0.8}}
	if f, dup := s.Similar(); f == nil || dup != 0.8 {
		t.Errorf("Similar = %v, %v", f != nil, dup)
	}
	s.Prof.DupCos = 0
	if f, _ := s.Similar(); f != nil {
		t.Error("a model with no duplicate cosine compares skills")
	}
}
