package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// tinyPairs makes n random pairs over vocab tokens; with negs, each pair
// gets up to two hard negatives.
func tinyPairs(n, vocab int, negs bool, seed uint64) []Pair {
	r := rand.New(rand.NewPCG(seed, 9))
	text := func() []int32 {
		t := make([]int32, 1+r.IntN(4))
		for i := range t {
			t[i] = int32(r.IntN(vocab))
		}
		return t
	}
	out := make([]Pair, n)
	for i := range out {
		out[i] = Pair{A: text(), B: text()}
		if negs {
			for k := r.IntN(3); k > 0; k-- {
				out[i].Neg = append(out[i].Neg, text())
			}
		}
	}
	return out
}

// refLoss is the loss written directly in float64, the definition the
// optimised lossAndGrad must match.
func refLoss(table []float32, d int, batch []Pair, scale float64) float64 {
	vec := func(ids []int32) []float64 {
		v := make([]float64, d)
		for _, id := range ids {
			for k := range v {
				v[k] += float64(table[int(id)*d+k]) / float64(len(ids))
			}
		}
		var ss float64
		for _, x := range v {
			ss += x * x
		}
		for k := range v {
			v[k] /= math.Sqrt(ss)
		}
		return v
	}
	var as, cs [][]float64
	for _, p := range batch {
		as, cs = append(as, vec(p.A)), append(cs, vec(p.B))
	}
	for _, p := range batch {
		for _, n := range p.Neg {
			cs = append(cs, vec(n))
		}
	}
	cos := func(x, y []float64) float64 {
		s := 0.0
		for k := range x {
			s += x[k] * y[k]
		}
		return scale * s
	}
	ce := func(logits []float64, target int) float64 {
		sum := 0.0
		for _, l := range logits {
			sum += math.Exp(l)
		}
		return math.Log(sum) - logits[target]
	}
	n, loss := len(batch), 0.0
	for i := range n {
		row := make([]float64, len(cs))
		col := make([]float64, n)
		for j := range cs {
			row[j] = cos(as[i], cs[j])
		}
		for j := range n {
			col[j] = cos(as[j], cs[i])
		}
		loss += ce(row, i) + ce(col, i)
	}
	return loss / (2 * float64(n))
}

func TestGradientFiniteDifference(t *testing.T) {
	for _, negs := range []bool{false, true} {
		const vocab, d = 20, 4
		batch := tinyPairs(3, vocab, negs, 3)
		if negs && len(batch[0].Neg)+len(batch[1].Neg)+len(batch[2].Neg) == 0 {
			batch[0].Neg = [][]int32{{1, 2}}
		}
		table := initTable(vocab, Config{Dim: d, InitStd: 0.1, Seed: 5}, nil)
		grad := make([]float32, len(table))
		w := newLossWorkspace(d, 20, 2)
		loss := w.lossAndGrad(table, batch, grad)
		if ref := refLoss(table, d, batch, 20); math.Abs(loss-ref) > 1e-4 {
			t.Fatalf("negs=%v: loss %v, reference %v", negs, loss, ref)
		}
		const h = 1e-3
		checked := 0
		for k := range table {
			orig := table[k]
			table[k] = orig + h
			up := refLoss(table, d, batch, 20)
			table[k] = orig - h
			down := refLoss(table, d, batch, 20)
			table[k] = orig
			num := (up - down) / (2 * h)
			if math.Abs(num-float64(grad[k])) > 2e-3+2e-2*math.Abs(num) {
				t.Errorf("negs=%v: d loss/d table[%d] = %v, finite difference %v", negs, k, grad[k], num)
			}
			if num != 0 {
				checked++
			}
		}
		if checked < 8 {
			t.Fatalf("negs=%v: only %d non-zero gradients checked", negs, checked)
		}
	}
}

// fixture is a learnable task: A holds a topic word, B a different word for
// the same topic (topic+half mod topics), each with one noise word.
func fixture(n, vocab int) []Pair {
	r := rand.New(rand.NewPCG(1, 2))
	topics := vocab / 2
	noise := func() int32 { return int32(topics + r.IntN(vocab-topics)) }
	out := make([]Pair, n)
	for i := range out {
		topic := r.IntN(topics)
		out[i] = Pair{
			A: []int32{int32(topic), noise()},
			B: []int32{noise(), int32((topic + topics/2) % topics)},
		}
	}
	return out
}

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.Dim, cfg.Batch, cfg.Epochs, cfg.Seed = 8, 32, 4, 7
	return cfg
}

func TestTrainLossGoesDown(t *testing.T) {
	pairs := fixture(640, 60)
	var first, last float64
	_, err := Train(context.Background(), pairs, 60, smallConfig(), nil, func(p Progress) {
		if p.Step == 1 {
			first = p.Loss
		}
		last = p.AvgLoss
	})
	if err != nil {
		t.Fatal(err)
	}
	if !(last < 0.6*first) {
		t.Fatalf("loss went from %.3f to %.3f (last epoch mean)", first, last)
	}
}

func TestTrainDeterministic(t *testing.T) {
	pairs := tinyPairs(300, 50, true, 4)
	a, err := Train(context.Background(), pairs, 50, smallConfig(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), pairs, 50, smallConfig(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different tables")
	}
	other := smallConfig()
	other.Seed++
	c, _ := Train(context.Background(), pairs, 50, other, nil, nil)
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same table")
	}
}

func TestTrainResume(t *testing.T) {
	pairs := tinyPairs(300, 50, true, 5)
	want, err := Train(context.Background(), pairs, 50, smallConfig(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig()
	cfg.CheckpointDir, cfg.CheckpointEvery = t.TempDir(), 3
	ctx, cancel := context.WithCancel(context.Background())
	_, err = Train(ctx, pairs, 50, cfg, nil, func(p Progress) {
		if p.Step == 17 { // not a multiple of CheckpointEvery: the cancel path saves
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	resumedFrom := -1
	got, err := Train(context.Background(), pairs, 50, cfg, nil, func(p Progress) { resumedFrom = p.Resumed })
	if err != nil {
		t.Fatal(err)
	}
	if resumedFrom != 17 {
		t.Fatalf("resumed from step %d, want 17", resumedFrom)
	}
	if !slices.Equal(got, want) {
		t.Fatal("resumed run differs from the uninterrupted one")
	}
	// A checkpoint of another run is refused rather than silently used.
	cfg.Seed++
	if _, err := Train(context.Background(), pairs, 50, cfg, nil, nil); err == nil {
		t.Fatal("resumed from another run's checkpoint")
	}
}

func TestTrainIndependentOfWorkers(t *testing.T) {
	pairs := tinyPairs(600, 80, true, 6)
	cfg := smallConfig()
	cfg.Dim, cfg.Batch, cfg.Epochs = 16, 256, 1 // big enough for gonum's parallel Sgemm
	run := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		table, err := Train(context.Background(), pairs, 80, cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return table
	}
	if !slices.Equal(run(1), run(3)) {
		t.Fatal("the table depends on GOMAXPROCS")
	}
}
