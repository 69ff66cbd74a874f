package models

import (
	"fmt"
	"math"
)

// QuantizeRows stores a rows×dim table as int8 with one float32 scale per
// row (symmetric: x ≈ q·scale, q in [-127, 127]): a quarter of the size,
// which keeps the built-in model small enough to ship in the binary.
// A row of zeros gets scale 0.
func QuantizeRows(data []float32, rows, dim int) (q []int8, scales []float32) {
	if rows < 0 || dim < 0 || len(data) != rows*dim {
		panic(fmt.Sprintf("QuantizeRows: %d values for %d×%d", len(data), rows, dim))
	}
	q = make([]int8, len(data))
	scales = make([]float32, rows)
	for r := 0; r < rows; r++ {
		row := data[r*dim : (r+1)*dim]
		var maxAbs float32
		for _, v := range row {
			if a := float32(math.Abs(float64(v))); a > maxAbs && !math.IsInf(float64(a), 0) {
				maxAbs = a
			}
		}
		if maxAbs == 0 {
			continue
		}
		scale := maxAbs / 127
		scales[r] = scale
		inv := 1 / scale
		out := q[r*dim : (r+1)*dim]
		for i, v := range row {
			x := math.RoundToEven(float64(v * inv))
			switch {
			case x > 127:
				x = 127
			case x < -127:
				x = -127
			case x != x: // NaN
				x = 0
			}
			out[i] = int8(x)
		}
	}
	return q, scales
}

// DequantizeRows undoes QuantizeRows, for training on (adapting) a shipped
// int8 model or comparing it with the float original.
func DequantizeRows(q []int8, scales []float32, rows, dim int) []float32 {
	if rows < 0 || dim < 0 || len(q) != rows*dim || len(scales) != rows {
		panic(fmt.Sprintf("DequantizeRows: %d values, %d scales for %d×%d", len(q), len(scales), rows, dim))
	}
	out := make([]float32, len(q))
	for r := 0; r < rows; r++ {
		s := scales[r]
		for i, v := range q[r*dim : (r+1)*dim] {
			out[r*dim+i] = float32(v) * s
		}
	}
	return out
}
