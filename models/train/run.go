package train

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/megagit/megagit/models"
)

// RunOptions are one training run from a pairs file to a model folder, as
// `megagit model train` gives them.
type RunOptions struct {
	Pairs       string // the pairs file (JSONL, maybe gzipped)
	MaxPairs    int    // read at most this many (0: all)
	Out, ID     string // the model folder written, and the model's id
	Checkpoints string // where checkpoints and the tokenised pairs go
	Init        string // a static model folder to start from ("": random vectors)
	Hard        HardNegatives
	Quantize    bool
	Config      Config
	Command     string // the command line, kept in the recipe
	// Say gets a status line (what was read, where training starts from);
	// Progress gets each step.
	Say      func(string)
	Progress func(Progress)
}

// RunResult is what a run trained.
type RunResult struct {
	Pairs int           // pairs trained on
	Dim   int           // the vectors' length
	Train time.Duration // time spent training, tokenising aside
}

// Run tokenises the pairs (mining hard negatives when asked), trains from
// random vectors or from Init, and writes the model folder with its
// recipe: every setting, the inputs' hashes and the timings, so the model
// can be trained again. An interrupted run is context.Canceled; the same
// run again resumes from its last checkpoint.
func Run(ctx context.Context, o RunOptions) (RunResult, error) {
	say := o.Say
	if say == nil {
		say = func(string) {}
	}
	tok, err := models.DefaultTokenizer()
	if err != nil {
		return RunResult{}, err
	}
	workers := runtime.GOMAXPROCS(0)
	t0 := time.Now()
	var (
		pairs    []Pair
		info     PairsInfo
		withNegs int
	)
	if o.Hard.K > 0 {
		pairs, info, withNegs, err = LoadPairsWithNegatives(o.Pairs, o.MaxPairs, o.Hard, tok, workers)
	} else {
		pairs, info, err = LoadPairs(o.Pairs, o.MaxPairs, tok, o.Checkpoints, workers)
	}
	if err != nil {
		return RunResult{}, err
	}
	tokenise := time.Since(t0)
	how := "tokenised"
	if info.Cached {
		how = "loaded tokenised"
	}
	say(fmt.Sprintf("%s %d pairs from %s in %s", how, info.Pairs, filepath.Base(o.Pairs), tokenise.Round(time.Millisecond)))
	if o.Hard.K > 0 {
		say(fmt.Sprintf("mined hard negatives for %d of them (up to %d each)", withNegs, o.Hard.K))
	}

	cfg := o.Config
	cfg.CheckpointDir = o.Checkpoints
	var init []float32
	initSHA := ""
	if o.Init != "" {
		base, err := models.LoadStatic(os.DirFS(o.Init), ".")
		if err != nil {
			return RunResult{}, fmt.Errorf("--init %s: %w", o.Init, err)
		}
		init, cfg.Dim = base.Table()
		if initSHA, err = FileSHA256(filepath.Join(o.Init, "vectors.npy")); err != nil {
			return RunResult{}, fmt.Errorf("--init %s: %w", o.Init, err)
		}
		say(fmt.Sprintf("starting from %s (%d dims)", base.ID(), cfg.Dim))
	}
	t1 := time.Now()
	table, err := Train(ctx, pairs, tok.VocabSize(), cfg, init, o.Progress)
	if err != nil {
		return RunResult{}, err
	}
	trainTime := time.Since(t1)
	recipe := map[string]any{
		"trainer": "megagit model train", "command": o.Command,
		"pairs_file": filepath.Base(o.Pairs), "pairs_sha256": info.SHA256, "max_pairs": o.MaxPairs,
		"pairs_read": info.Lines, "pairs_used": info.Pairs,
		"dim": cfg.Dim, "epochs": cfg.Epochs, "batch": cfg.Batch, "lr": cfg.LR, "warmup_frac": cfg.WarmupFrac,
		"schedule": "one-cycle: linear warm-up from lr/25, cosine down to lr/25/1e4",
		"loss":     "symmetric in-batch cross-entropy over cosine x scale", "scale": cfg.Scale,
		"init": fmt.Sprintf("N(0, %g)", cfg.InitStd), "optimizer": "Adam (dense)",
		"beta1": cfg.Beta1, "beta2": cfg.Beta2, "eps": cfg.Eps, "seed": cfg.Seed,
		"quantized": o.Quantize, "train_seconds": trainTime.Seconds(), "tokenise_seconds": tokenise.Seconds(),
		"gomaxprocs": workers, "go": runtime.Version(),
	}
	if o.Init != "" {
		recipe["init"] = filepath.Base(filepath.Clean(o.Init))
		recipe["init_vectors_sha256"] = initSHA
	}
	if h := o.Hard; h.K > 0 {
		recipe["hard_negatives"] = h.K
		recipe["hard_negatives_skip"] = h.Skip
		recipe["hard_negatives_max_df"] = h.MaxPostings
		recipe["hard_negatives_mining"] = "BM25F (ranker) of each a-text among all b-texts; extra A->B columns of the loss"
		recipe["pairs_with_negatives"] = withNegs
	}
	if err := models.SaveStatic(o.Out, o.ID, cfg.Dim, table, o.Quantize, recipe); err != nil {
		return RunResult{}, err
	}
	return RunResult{Pairs: info.Pairs, Dim: cfg.Dim, Train: trainTime}, nil
}
