package models

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// fixedEmbedder returns the same vectors for any texts, in order.
type fixedEmbedder [][]float32

func (f fixedEmbedder) ID() string { return "fixed" }
func (f fixedEmbedder) Dim() int   { return len(f[0]) }
func (f fixedEmbedder) Embed(texts []string, kind Kind) ([][]float32, error) {
	return f[:len(texts)], nil
}

// TestReferenceCheck: vectors within the tolerances pass; a component or a
// pairwise cosine outside them, a NaN, a narrower vector or an incomplete
// reference fail, naming what differs.
func TestReferenceCheck(t *testing.T) {
	vecs := [][]float32{{0.6, 0.8, 0, 0}, {0, 0.6, 0.8, 0}, {0, 0, 0.6, 0.8}}
	ref, err := NewReference(fixedEmbedder(vecs), []string{"a", "b", "c"}, 2, 0.02, 0.03)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Head[0]) != 2 || len(ref.Cosines) != 3 || math.Abs(ref.Cosines[0]-0.48) > 1e-6 {
		t.Fatalf("reference %+v", ref)
	}
	near := [][]float32{{0.61, 0.79, 0, 0.01}, {0, 0.6, 0.8, 0}, {0, 0, 0.6, 0.8}}
	if err := ref.Check(fixedEmbedder(near)); err != nil {
		t.Fatalf("vectors within the tolerances: %v", err)
	}
	tests := []struct {
		name string
		vecs [][]float32
		want string
	}{
		{"a component off", [][]float32{{0.6, 0.8, 0, 0}, {0, 0.6, 0.8, 0}, {0.05, 0, 0.6, 0.8}}, `component 0 of the vector of "c" is 0.0500, the reference 0.0000`},
		{"a cosine off", [][]float32{{0.6, 0.8, 0, 0}, {0, 0.6, 0.8, 0}, {0, 0, 0.8, 0.6}}, `the cosine of "b" and "c" is 0.6400, the reference 0.4800`},
		{"NaN", [][]float32{{float32(math.NaN()), 0.8, 0, 0}, {0, 0.6, 0.8, 0}, {0, 0, 0.6, 0.8}}, `component 0 of the vector of "a" is NaN`},
		{"narrower", [][]float32{{0.6}, {0.6}, {0.6}}, "a 1-dimensional vector, the reference has 2 components"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ref.Check(fixedEmbedder(tt.vecs))
			if !errors.Is(err, ErrBehaviour) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrBehaviour naming %q", err, tt.want)
			}
		})
	}
	broken := ref
	broken.Cosines = broken.Cosines[:1]
	if err := broken.Check(fixedEmbedder(vecs)); !errors.Is(err, ErrBehaviour) || !strings.Contains(err.Error(), "incomplete") {
		t.Fatalf("incomplete reference: %v", err)
	}
}
