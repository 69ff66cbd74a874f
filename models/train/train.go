package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"
)

// Pair is one training example in token ids (specials already dropped): A
// should land near B; Neg are hard negatives for A (for adapt: contexts a
// skill was harmful for), scored as extra columns of the A→B direction.
type Pair struct {
	A, B []int32
	Neg  [][]int32
}

// Config holds the hyperparameters; DefaultConfig gives the reference
// recipe for a static model trained from random vectors on name ↔ summary
// pairs (batch 8,192, Adam one-cycle peaking at 0.05, 3 epochs), which a
// GPU run with PyTorch measured before megagit's trainer reproduced it.
type Config struct {
	Dim        int     // vector length
	Epochs     int     // passes over the pairs
	Batch      int     // pairs per step (each pair is a negative for the others)
	LR         float64 // peak learning rate of the one-cycle schedule
	WarmupFrac float64 // share of steps spent warming up to LR
	Scale      float64 // cosine multiplier before the softmax (inverse temperature)
	InitStd    float64 // standard deviation of the N(0, σ) initial table
	Beta1      float64 // Adam
	Beta2      float64 // Adam
	Eps        float64 // Adam
	Seed       uint64  // decides the initial table and every shuffle

	// CheckpointDir, when set, receives a checkpoint every CheckpointEvery
	// steps (and when ctx is cancelled); Train resumes from it.
	CheckpointDir   string
	CheckpointEvery int
}

// DefaultConfig is the reference recipe (batch 8192, Adam one-cycle
// peaking at 0.05, N(0, 0.1) init, scale 20, 3 epochs) at 256 dimensions.
func DefaultConfig() Config {
	return Config{
		Dim: 256, Epochs: 3, Batch: 8192, LR: 0.05, WarmupFrac: 0.1, Scale: 20,
		InitStd: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Seed: 1,
		CheckpointEvery: 20,
	}
}

// Progress is reported after every step so a CLI can draw a bar.
type Progress struct {
	Step, Steps int           // completed steps / total steps
	Epoch       int           // 1-based epoch of the last step
	Loss        float64       // loss of the last step
	AvgLoss     float64       // mean loss over the current epoch so far
	LR          float64       // learning rate used by the last step
	Elapsed     time.Duration // since this call started (not counting resumed work)
	Resumed     int           // step the run resumed from (0 for a fresh run)
}

// Train learns a vocab×cfg.Dim static embedding table (row-major float32) on
// pairs with in-batch negatives and a symmetric cross-entropy. init, when not
// nil, warm-starts from an existing table of the same shape. The result
// depends only on pairs, init and cfg (not on GOMAXPROCS or on whether the
// run was interrupted and resumed from a checkpoint).
//
// Adam is dense, like the reference PyTorch run: every row's moments decay
// and move each step, also for rows the batch did not touch. At 30k×256 that
// costs ~10 ms a step, small next to the batch's three B×B×dim products.
func Train(ctx context.Context, pairs []Pair, vocab int, cfg Config, init []float32, progress func(Progress)) ([]float32, error) {
	if err := cfg.validate(len(pairs), vocab, init); err != nil {
		return nil, err
	}
	st := &trainState{}
	fp := fingerprint(pairs, vocab, cfg, init)
	resumed := false
	if cfg.CheckpointDir != "" {
		ok, err := loadCheckpoint(cfg.CheckpointDir, fp, vocab*cfg.Dim, st)
		if err != nil {
			return nil, err
		}
		resumed = ok
	}
	if !resumed {
		st.table = initTable(vocab, cfg, init)
		st.m = make([]float32, len(st.table))
		st.v = make([]float32, len(st.table))
	}
	perEpoch := (len(pairs) + cfg.Batch - 1) / cfg.Batch
	steps := perEpoch * cfg.Epochs
	w := newLossWorkspace(cfg.Dim, cfg.Scale, runtime.GOMAXPROCS(0))
	grad := make([]float32, len(st.table))
	start, from := time.Now(), st.step
	var order []int
	epochLoss, epochSteps := 0.0, 0
	for st.step < steps {
		epoch, idx := st.step/perEpoch, st.step%perEpoch
		if order == nil || idx == 0 {
			order = epochOrder(len(pairs), cfg.Seed, epoch)
			epochLoss, epochSteps = 0, 0
		}
		if err := ctx.Err(); err != nil {
			if cfg.CheckpointDir != "" && st.step > from {
				if cerr := saveCheckpoint(cfg.CheckpointDir, fp, st); cerr != nil {
					return nil, errors.Join(err, cerr)
				}
			}
			return nil, err
		}
		hi := min((idx+1)*cfg.Batch, len(pairs))
		batch := make([]Pair, 0, hi-idx*cfg.Batch)
		for _, k := range order[idx*cfg.Batch : hi] {
			batch = append(batch, pairs[k])
		}
		loss := w.lossAndGrad(st.table, batch, grad)
		lr := oneCycle(cfg, st.step, steps)
		adamStep(st, grad, cfg, lr, w.workers)
		st.step++
		epochLoss += loss
		epochSteps++
		if progress != nil {
			progress(Progress{Step: st.step, Steps: steps, Epoch: epoch + 1, Loss: loss,
				AvgLoss: epochLoss / float64(epochSteps), LR: lr, Elapsed: time.Since(start), Resumed: from})
		}
		if cfg.CheckpointDir != "" && cfg.CheckpointEvery > 0 && st.step%cfg.CheckpointEvery == 0 && st.step < steps {
			if err := saveCheckpoint(cfg.CheckpointDir, fp, st); err != nil {
				return nil, err
			}
		}
	}
	if cfg.CheckpointDir != "" {
		if err := saveCheckpoint(cfg.CheckpointDir, fp, st); err != nil {
			return nil, err
		}
	}
	return st.table, nil
}

func (cfg Config) validate(n, vocab int, init []float32) error {
	switch {
	case n < 2:
		return fmt.Errorf("train: need at least 2 pairs, got %d", n)
	case vocab < 1 || cfg.Dim < 1 || cfg.Epochs < 1 || cfg.Batch < 2:
		return fmt.Errorf("train: vocab, dim and epochs must be positive and batch at least 2")
	case !(cfg.LR > 0) || !(cfg.Scale > 0) || cfg.WarmupFrac < 0 || cfg.WarmupFrac >= 1:
		return fmt.Errorf("train: lr and scale must be positive and warmup in [0, 1)")
	case init != nil && len(init) != vocab*cfg.Dim:
		return fmt.Errorf("train: warm-start table has %d values, want %d×%d", len(init), vocab, cfg.Dim)
	}
	return nil
}

// trainState is everything a checkpoint holds: the shuffles and the initial
// table are derived from the seed, so the step is the whole RNG state.
type trainState struct {
	step     int
	table    []float32
	m, v     []float32 // Adam moments
	adamStep int       // Adam's own step count (bias correction)
}

// initTable draws N(0, σ) from the seed or copies the warm-start table.
func initTable(vocab int, cfg Config, init []float32) []float32 {
	t := make([]float32, vocab*cfg.Dim)
	if init != nil {
		copy(t, init)
		return t
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	for i := range t {
		t[i] = float32(r.NormFloat64() * cfg.InitStd)
	}
	return t
}

// epochOrder is the fixed shuffle of epoch e.
func epochOrder(n int, seed uint64, e int) []int {
	r := rand.New(rand.NewPCG(seed, uint64(e)+1))
	return r.Perm(n)
}

// oneCycle is a linear warm-up from LR/25 to LR over WarmupFrac of the steps,
// then a cosine decay to LR/25/1e4 (PyTorch's OneCycleLR shape).
func oneCycle(cfg Config, step, steps int) float64 {
	lo, end := cfg.LR/25, cfg.LR/25/1e4
	warm := int(math.Round(cfg.WarmupFrac * float64(steps)))
	if step < warm {
		return lo + (cfg.LR-lo)*float64(step)/float64(warm)
	}
	rest := steps - warm
	if rest <= 1 {
		return cfg.LR
	}
	p := float64(step-warm) / float64(rest-1)
	return end + (cfg.LR-end)*(1+math.Cos(math.Pi*p))/2
}

// adamStep applies one dense Adam update with bias correction and zeroes grad.
func adamStep(st *trainState, grad []float32, cfg Config, lr float64, workers int) {
	st.adamStep++
	t := float64(st.adamStep)
	b1, b2 := float32(cfg.Beta1), float32(cfg.Beta2)
	step := float32(lr / (1 - math.Pow(cfg.Beta1, t)))
	invBC2 := float32(1 / math.Sqrt(1-math.Pow(cfg.Beta2, t)))
	eps := float32(cfg.Eps)
	parallelFor(len(grad), workers, func(lo, hi int) {
		p, m, v, g := st.table[lo:hi], st.m[lo:hi], st.v[lo:hi], grad[lo:hi]
		for k := range g {
			gk := g[k]
			g[k] = 0
			mk := b1*m[k] + (1-b1)*gk
			vk := b2*v[k] + (1-b2)*gk*gk
			m[k], v[k] = mk, vk
			p[k] -= step * mk / (float32(math.Sqrt(float64(vk)))*invBC2 + eps)
		}
	})
}
