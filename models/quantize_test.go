package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestQuantizeRoundTrip(t *testing.T) {
	const rows, dim = 50, 64
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, rows*dim)
	for i := range data {
		data[i] = float32(rng.NormFloat64() * 0.1 * float64(1+i/dim)) // rows of different scale
	}
	copy(data[3*dim:4*dim], make([]float32, dim)) // an all-zero row
	q, scales := QuantizeRows(data, rows, dim)
	if len(q) != rows*dim || len(scales) != rows {
		t.Fatalf("sizes %d, %d", len(q), len(scales))
	}
	if scales[3] != 0 {
		t.Fatalf("zero row scale = %g", scales[3])
	}
	back := DequantizeRows(q, scales, rows, dim)
	for r := 0; r < rows; r++ {
		var dot, na, nb float64
		for i := r * dim; i < (r+1)*dim; i++ {
			// Error per value is at most half a step.
			if d := math.Abs(float64(back[i] - data[i])); d > float64(scales[r])/2+1e-7 {
				t.Fatalf("row %d: |%g - %g| > scale/2 (%g)", r, back[i], data[i], scales[r]/2)
			}
			dot += float64(back[i] * data[i])
			na += float64(data[i] * data[i])
			nb += float64(back[i] * back[i])
		}
		if r != 3 {
			if cos := dot / math.Sqrt(na*nb); cos < 0.999 {
				t.Fatalf("row %d: cosine after round trip %.5f", r, cos)
			}
		}
		// The largest magnitude maps to ±127 exactly.
		var maxq int8
		for _, v := range q[r*dim : (r+1)*dim] {
			if v > maxq {
				maxq = v
			} else if -v > maxq {
				maxq = -v
			}
		}
		if r != 3 && maxq != 127 {
			t.Fatalf("row %d: max |q| = %d, want 127", r, maxq)
		}
	}
}

func TestQuantizeOddValues(t *testing.T) {
	data := []float32{float32(math.NaN()), 1, -1, float32(math.Inf(1))}
	q, s := QuantizeRows(data, 1, 4)
	if s[0] != 1.0/127 || q[0] != 0 || q[1] != 127 || q[2] != -127 || q[3] != 127 {
		t.Fatalf("q=%v s=%v", q, s)
	}
}
