package train

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// lossWorkspace holds the per-batch buffers so steps do not allocate
// hundreds of megabytes each time. Every parallel loop splits rows (or, for
// the scatter into the table gradient, columns) into fixed chunks, and gonum's
// Sgemm gives each output block to one goroutine with a fixed k order, so
// results do not depend on the number of workers.
type lossWorkspace struct {
	dim     int
	scale   float32
	workers int

	anchors, cands []float32 // pooled unit vectors: B×dim, C×dim (C = B + negatives)
	aNorm, cNorm   []float32 // pre-normalisation lengths
	candT          []float32 // dim×C
	s              []float32 // B×C logits, then their gradient
	t              []float32 // C×B transposed logits/gradients
	dA, dC         []float32 // gradients of the unit vectors
	rowLoss        []float64 // per-row losses, summed in order at the end
	colLoss        []float64
}

func newLossWorkspace(dim int, scale float64, workers int) *lossWorkspace {
	return &lossWorkspace{dim: dim, scale: float32(scale), workers: max(1, workers)}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// lossAndGrad returns the batch loss (mean of the A→B and B→A cross-entropies)
// and adds its gradient with respect to table into grad.
func (w *lossWorkspace) lossAndGrad(table []float32, batch []Pair, grad []float32) float64 {
	d, n := w.dim, len(batch)
	aTexts := make([][]int32, n)
	cTexts := make([][]int32, n, n+8)
	for i, p := range batch {
		aTexts[i], cTexts[i] = p.A, p.B
	}
	for _, p := range batch {
		cTexts = append(cTexts, p.Neg...)
	}
	c := len(cTexts)
	w.anchors, w.aNorm = grow(w.anchors, n*d), grow(w.aNorm, n)
	w.cands, w.cNorm = grow(w.cands, c*d), grow(w.cNorm, c)
	w.pool(table, aTexts, w.anchors, w.aNorm)
	w.pool(table, cTexts, w.cands, w.cNorm)

	// Logits S = scale · anchors · candsᵀ, as NN products (gonum's
	// transposed variants are 2–3× slower).
	w.candT = grow(w.candT, d*c)
	transpose(w.cands, c, d, w.candT, w.workers)
	w.s = grow(w.s, n*c)
	blas32.Gemm(blas.NoTrans, blas.NoTrans, w.scale,
		blas32.General{Rows: n, Cols: d, Stride: d, Data: w.anchors},
		blas32.General{Rows: d, Cols: c, Stride: c, Data: w.candT},
		0, blas32.General{Rows: n, Cols: c, Stride: c, Data: w.s})

	// B→A: softmax over each positive's column, done on the transpose.
	w.t = grow(w.t, c*n)
	transposeBlock(w.s, c, w.t, n, n, n, w.workers, false)
	w.rowLoss, w.colLoss = grow(w.rowLoss, n), grow(w.colLoss, n)
	inv := float32(1 / (2 * float64(n)))
	w.softmaxRows(w.s, n, c, w.rowLoss, inv)
	w.softmaxRows(w.t, n, n, w.colLoss, inv)
	// Gradient of the logits: S += Tᵀ on the B×B block, then T = Sᵀ in full.
	transposeBlock(w.t, n, w.s, c, n, n, w.workers, true)
	transpose(w.s, n, c, w.t, w.workers)

	w.dA, w.dC = grow(w.dA, n*d), grow(w.dC, c*d)
	blas32.Gemm(blas.NoTrans, blas.NoTrans, w.scale,
		blas32.General{Rows: n, Cols: c, Stride: c, Data: w.s},
		blas32.General{Rows: c, Cols: d, Stride: d, Data: w.cands},
		0, blas32.General{Rows: n, Cols: d, Stride: d, Data: w.dA})
	blas32.Gemm(blas.NoTrans, blas.NoTrans, w.scale,
		blas32.General{Rows: c, Cols: n, Stride: n, Data: w.t},
		blas32.General{Rows: n, Cols: d, Stride: d, Data: w.anchors},
		0, blas32.General{Rows: c, Cols: d, Stride: d, Data: w.dC})

	w.unnormalise(w.anchors, w.aNorm, w.dA, n)
	w.unnormalise(w.cands, w.cNorm, w.dC, c)
	w.scatter(aTexts, w.dA, cTexts, w.dC, grad)

	loss := 0.0
	for i := 0; i < n; i++ {
		loss += w.rowLoss[i] + w.colLoss[i]
	}
	return loss / (2 * float64(n))
}

// pool writes each text's normalised mean row into out and its length
// before normalisation into norms (0 for a text without tokens).
func (w *lossWorkspace) pool(table []float32, texts [][]int32, out, norms []float32) {
	d := w.dim
	parallelFor(len(texts), w.workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pooled := out[i*d : (i+1)*d]
			meanRows(table, d, texts[i], pooled)
			norms[i] = normalize(pooled)
		}
	})
}

// meanRows writes the mean of table's rows ids into out (zeros for no ids).
func meanRows(table []float32, d int, ids []int32, out []float32) {
	clear(out)
	for _, id := range ids {
		row := table[int(id)*d : int(id+1)*d]
		for k, x := range row {
			out[k] += x
		}
	}
	if len(ids) > 0 {
		inv := 1 / float32(len(ids))
		for k := range out {
			out[k] *= inv
		}
	}
}

// normalize scales v to unit length in place and returns its old length.
func normalize(v []float32) float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	nrm := float32(math.Sqrt(ss))
	if nrm > 0 {
		inv := 1 / nrm
		for k := range v {
			v[k] *= inv
		}
	}
	return nrm
}

// softmaxRows turns each row of logits into (softmax − onehot(diagonal))·inv
// and stores the row's cross-entropy, target = the row's own index.
func (w *lossWorkspace) softmaxRows(m []float32, rows, cols int, loss []float64, inv float32) {
	parallelFor(rows, w.workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := m[i*cols : (i+1)*cols]
			mx := row[0]
			for _, x := range row {
				mx = max(mx, x)
			}
			own := float64(row[i] - mx)
			var sum float64
			for k, x := range row {
				e := float32(math.Exp(float64(x - mx)))
				row[k] = e
				sum += float64(e)
			}
			loss[i] = math.Log(sum) - own
			r := inv / float32(sum)
			for k := range row {
				row[k] *= r
			}
			row[i] -= inv
		}
	})
}

// unnormalise maps gradients of unit vectors to gradients of the unnormalised
// means, in place: (g − v(v·g)) / |u|.
func (w *lossWorkspace) unnormalise(v, norms, g []float32, n int) {
	d := w.dim
	parallelFor(n, w.workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			vi, gi := v[i*d:(i+1)*d], g[i*d:(i+1)*d]
			if norms[i] == 0 {
				clear(gi)
				continue
			}
			var dot float32
			for k := range vi {
				dot += vi[k] * gi[k]
			}
			inv := 1 / norms[i]
			for k := range gi {
				gi[k] = (gi[k] - vi[k]*dot) * inv
			}
		}
	})
}

// scatter adds each text's mean-gradient to its tokens' rows. Workers own
// column ranges, so every table entry is summed in the same order.
func (w *lossWorkspace) scatter(aTexts [][]int32, dA []float32, cTexts [][]int32, dC []float32, grad []float32) {
	d := w.dim
	parallelFor(d, w.workers, func(lo, hi int) {
		for _, part := range []struct {
			texts [][]int32
			g     []float32
		}{{aTexts, dA}, {cTexts, dC}} {
			for i, ids := range part.texts {
				if len(ids) == 0 {
					continue
				}
				inv := 1 / float32(len(ids))
				src := part.g[i*d+lo : i*d+hi]
				for _, id := range ids {
					dst := grad[int(id)*d+lo : int(id)*d+hi]
					for k, x := range src {
						dst[k] += x * inv
					}
				}
			}
		}
	})
}

// parallelFor splits [0, n) into at most workers contiguous chunks.
func parallelFor(n, workers int, f func(lo, hi int)) {
	if workers <= 1 || n < 2*workers {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		lo, hi := n*k/workers, n*(k+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// transpose writes the rows×cols matrix src into dst as cols×rows.
func transpose(src []float32, rows, cols int, dst []float32, workers int) {
	transposeBlock(src, cols, dst, rows, rows, cols, workers, false)
}

// transposeBlock sets (or, with add, adds) dst[j][i] = src[i][j] for the
// top-left rows×cols block of src (row stride ss) into dst (row stride ds),
// in cache-sized tiles.
func transposeBlock(src []float32, ss int, dst []float32, ds, rows, cols, workers int, add bool) {
	const tile = 64
	tiles := (cols + tile - 1) / tile
	parallelFor(tiles, workers, func(lo, hi int) {
		for jt := lo * tile; jt < min(hi*tile, cols); jt += tile {
			jEnd := min(jt+tile, cols)
			for it := 0; it < rows; it += tile {
				iEnd := min(it+tile, rows)
				for j := jt; j < jEnd; j++ {
					drow := dst[j*ds : j*ds+rows]
					for i := it; i < iEnd; i++ {
						if add {
							drow[i] += src[i*ss+j]
						} else {
							drow[i] = src[i*ss+j]
						}
					}
				}
			}
		}
	})
}
