package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/megagit/megagit/models/train"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type modelTrainOptions struct {
	app         *app
	ctx         context.Context
	pairs       string
	out         string
	id          string
	checkpoints string
	cfg         train.Config
	maxPairs    int
	hard        train.HardNegatives
	init        string // a static model folder to start from
	quantize    bool
	json        bool
	args        []string // the command line (flags as given), for the recipe
}

// newModelTrainCmd parses `megagit model train` into options and hands them
// to runF, or to modelTrainRun when runF is nil (tests pass a stub).
func newModelTrainCmd(a *app, runF func(*modelTrainOptions) error) *cobra.Command {
	opts := &modelTrainOptions{app: a, cfg: train.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   "train --pairs FILE.jsonl[.gz] --out DIR",
		Short: "Train a static embedding model on text pairs (CPU, resumable)",
		Long: `train learns one vector per WordPiece token of the built-in tokenizer from
{"a": ..., "b": ...} pairs (in-batch negatives, symmetric cross-entropy, Adam
with a one-cycle schedule) and writes a model folder that "megagit model use
--dir" accepts. The defaults train from random vectors (3 epochs, peak
learning rate 0.05); the built-in megagit-static-v3 starts instead from
pretrained word vectors (--init) with --epochs 2 --lr 0.02.

Checkpoints (and the tokenised pairs) go to DIR/.checkpoints every few steps
and on Ctrl-C; running the same command again resumes where it stopped and
gives the same model as an uninterrupted run. Delete that folder when done.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.pairs == "" || opts.out == "" {
				return usageError{errors.New("--pairs and --out are required")}
			}
			c := opts.cfg
			if c.Dim < 1 || c.Epochs < 1 || c.Batch < 2 || !(c.LR > 0) || opts.maxPairs < 0 {
				return usageError{errors.New("--dim and --epochs must be positive, --batch at least 2, --lr above 0")}
			}
			if h := opts.hard; h.K < 0 || h.Skip < 0 || h.MaxPostings < 0 {
				return usageError{errors.New("--hard-negatives, --hard-negatives-skip and --hard-negatives-max-df must not be negative")}
			}
			if opts.id == "" {
				opts.id = filepath.Base(filepath.Clean(opts.out))
			}
			if opts.checkpoints == "" {
				opts.checkpoints = filepath.Join(opts.out, ".checkpoints")
			}
			opts.args = []string{"megagit", "model", "train"}
			cmd.Flags().Visit(func(f *pflag.Flag) {
				if f.Name != "json" { // how it prints, not how it trains
					opts.args = append(opts.args, "--"+f.Name+"="+f.Value.String())
				}
			})
			opts.ctx = cmd.Context()
			return orRun(runF, modelTrainRun)(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.pairs, "pairs", "", "training pairs, .jsonl or .jsonl.gz of {\"a\", \"b\"} (`FILE`)")
	f.StringVar(&opts.out, "out", "", "model folder to write (`DIR`)")
	f.StringVar(&opts.id, "id", "", "model id written to model.json (default: the folder name)")
	f.StringVar(&opts.checkpoints, "checkpoints", "", "checkpoint folder (default DIR/.checkpoints)")
	f.IntVar(&opts.cfg.Dim, "dim", opts.cfg.Dim, "vector dimensions")
	f.IntVar(&opts.cfg.Epochs, "epochs", opts.cfg.Epochs, "passes over the pairs")
	f.IntVar(&opts.cfg.Batch, "batch", opts.cfg.Batch, "pairs per step (in-batch negatives)")
	f.Float64Var(&opts.cfg.LR, "lr", opts.cfg.LR, "peak learning rate")
	f.Uint64Var(&opts.cfg.Seed, "seed", opts.cfg.Seed, "random seed (initial table and shuffles)")
	f.IntVar(&opts.cfg.CheckpointEvery, "checkpoint-every", opts.cfg.CheckpointEvery, "steps between checkpoints")
	f.IntVar(&opts.maxPairs, "max-pairs", 0, "use only the first `N` pairs (0: all)")
	f.StringVar(&opts.init, "init", "", "start from this static model folder's table instead of random vectors (`DIR`; its dim is used)")
	f.IntVar(&opts.hard.K, "hard-negatives", 0, "add up to `K` hard negatives per pair: other pairs' b-texts that share words with its a-text (BM25F among the pairs)")
	f.IntVar(&opts.hard.Skip, "hard-negatives-skip", 0, "pass over the `N` best BM25F matches first (likely paraphrases)")
	f.IntVar(&opts.hard.MaxPostings, "hard-negatives-max-df", 0, "ignore a-text words found in more than `N` b-texts when mining (0: no limit)")
	f.BoolVar(&opts.quantize, "quantize", true, "store int8 vectors with per-row scales (a quarter of the size)")
	f.BoolVar(&opts.json, "json", false, "print JSON: id, out, dim, pairs, train_seconds")
	return cmd
}

func modelTrainRun(opts *modelTrainOptions) error {
	ctx := opts.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errOut := opts.app.errOut
	res, err := train.Run(ctx, train.RunOptions{
		Pairs: opts.pairs, MaxPairs: opts.maxPairs, Out: opts.out, ID: opts.id, Checkpoints: opts.checkpoints,
		Init: opts.init, Hard: opts.hard, Quantize: opts.quantize, Config: opts.cfg, Command: strings.Join(opts.args, " "),
		Say:      func(line string) { fmt.Fprintf(errOut, "megagit: %s\n", line) },
		Progress: trainProgress(errOut),
	})
	if errors.Is(err, context.Canceled) {
		return withHint(errors.New("training interrupted"), "run the same command again to resume from the last checkpoint")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "megagit: trained %s in %s\n", opts.id, res.Train.Round(time.Second))
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"id": opts.id, "out": opts.out, "dim": res.Dim,
			"pairs": res.Pairs, "train_seconds": res.Train.Seconds()})
	}
	fmt.Fprintln(opts.app.out, opts.out)
	return nil
}

// trainProgress draws a bar on a terminal and prints a status line every
// 10 s otherwise (logs of long background runs).
func trainProgress(w io.Writer) func(train.Progress) {
	if isTTY(w) {
		var bar *progressbar.ProgressBar
		return func(p train.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions(p.Steps, progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription("training"), progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
			}
			bar.Describe(fmt.Sprintf("epoch %d loss %.3f", p.Epoch, p.AvgLoss))
			bar.Set(p.Step)
		}
	}
	var last time.Time
	return func(p train.Progress) {
		if last.IsZero() && p.Resumed > 0 {
			fmt.Fprintf(w, "megagit: resumed from the checkpoint at step %d\n", p.Resumed)
		}
		if time.Since(last) < 10*time.Second && p.Step < p.Steps {
			return
		}
		last = time.Now()
		eta := "?"
		if done := p.Step - p.Resumed; done > 0 {
			eta = (p.Elapsed / time.Duration(done) * time.Duration(p.Steps-p.Step)).Round(time.Second).String()
		}
		fmt.Fprintf(w, "megagit: step %d/%d epoch %d loss %.4f (epoch mean %.4f) lr %.4g elapsed %s eta %s\n",
			p.Step, p.Steps, p.Epoch, p.Loss, p.AvgLoss, p.LR, p.Elapsed.Round(time.Second), eta)
	}
}
