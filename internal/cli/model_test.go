package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/learn"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/models/train"
)

// Flag parsing of every `model` verb: the runs themselves are covered by
// the model_*.txtar scripts and model_pull_test.go.
func TestModelFlags(t *testing.T) {
	t.Run("use", func(t *testing.T) {
		testFlags(t, newModelUseCmd, func(o *modelUseOptions) { o.app = nil }, []flagCase[modelUseOptions]{
			{name: "an id", args: []string{"megagit-static-v1"}, want: modelUseOptions{id: "megagit-static-v1"}},
			{name: "none", args: []string{"none"}, want: modelUseOptions{id: "none"}},
			{name: "json", args: []string{"none", "--json"}, want: modelUseOptions{id: "none", json: true}},
			{name: "a folder", args: []string{"--dir", "models/m"}, want: modelUseOptions{dir: "models/m"}},
			{name: "a folder with its profile", args: []string{"--dir", "m", "--profile", "bge-small-en-v1.5"},
				want: modelUseOptions{dir: "m", profile: "bge-small-en-v1.5"}},
			{name: "neither", wantErr: "give either a model ID or --dir DIR"},
			{name: "both", args: []string{"none", "--dir", "m"}, wantErr: "give either a model ID or --dir DIR"},
			{name: "profile without a folder", args: []string{"bge-small-en-v1.5", "--profile", "bge-small-en-v1.5"},
				wantErr: "--profile goes with --dir"},
			{name: "two ids", args: []string{"a", "b"}, wantErr: "takes at most one model ID"},
		})
	})
	t.Run("list", func(t *testing.T) {
		testFlags(t, newModelListCmd, func(o *modelListOptions) { o.app = nil }, []flagCase[modelListOptions]{
			{name: "table", want: modelListOptions{}},
			{name: "json", args: []string{"--json"}, want: modelListOptions{json: true}},
			{name: "an argument", args: []string{"bge-m3"}, wantErr: "expects no arguments"},
		})
	})
	t.Run("pull", func(t *testing.T) {
		testFlags(t, newModelPullCmd, func(o *modelPullOptions) {
			if o.lookup == nil || o.ctx == nil {
				t.Error("pull lost its profile lookup or its context")
			}
			o.app, o.ctx, o.lookup = nil, nil, nil
		}, []flagCase[modelPullOptions]{
			{name: "an id", args: []string{"bge-small-en-v1.5"}, want: modelPullOptions{id: "bge-small-en-v1.5"}},
			{name: "every flag", args: []string{"all-minilm-l6-v2", "--insecure-no-pin", "--force", "--json"},
				want: modelPullOptions{id: "all-minilm-l6-v2", insecureNoPin: true, force: true, json: true}},
			{name: "no id", wantErr: "expects one model ID"},
			{name: "unknown flag", args: []string{"bge-m3", "--no-pin"}, wantErr: "unknown flag: --no-pin"},
		})
	})
	t.Run("train", func(t *testing.T) {
		def := train.DefaultConfig()
		tuned := def
		tuned.Dim, tuned.Epochs, tuned.Batch, tuned.LR, tuned.Seed, tuned.CheckpointEvery = 64, 1, 16, 0.1, 7, 5
		testFlags(t, newModelTrainCmd, func(o *modelTrainOptions) { o.app, o.ctx = nil, nil }, []flagCase[modelTrainOptions]{
			{name: "defaults", args: []string{"--pairs", "p.jsonl", "--out", "out/m"},
				want: modelTrainOptions{pairs: "p.jsonl", out: "out/m", id: "m", checkpoints: filepath.Join("out", "m", ".checkpoints"),
					cfg: def, quantize: true, args: []string{"megagit", "model", "train", "--out=out/m", "--pairs=p.jsonl"}}},
			{name: "every flag", args: []string{"--pairs", "p.jsonl.gz", "--out", "m", "--id", "mine", "--checkpoints", "/tmp/c",
				"--dim", "64", "--epochs", "1", "--batch", "16", "--lr", "0.1", "--seed", "7", "--checkpoint-every", "5",
				"--max-pairs", "100", "--quantize=false"},
				want: modelTrainOptions{pairs: "p.jsonl.gz", out: "m", id: "mine", checkpoints: "/tmp/c", cfg: tuned, maxPairs: 100,
					args: []string{"megagit", "model", "train", "--batch=16", "--checkpoint-every=5", "--checkpoints=/tmp/c", "--dim=64",
						"--epochs=1", "--id=mine", "--lr=0.1", "--max-pairs=100", "--out=m", "--pairs=p.jsonl.gz", "--quantize=false", "--seed=7"}}},
			{name: "hard negatives", args: []string{"--pairs", "p", "--out", "m", "--hard-negatives", "2", "--hard-negatives-skip", "1", "--hard-negatives-max-df", "5000"},
				want: modelTrainOptions{pairs: "p", out: "m", id: "m", checkpoints: filepath.Join("m", ".checkpoints"), cfg: def, quantize: true,
					hard: train.HardNegatives{K: 2, Skip: 1, MaxPostings: 5000},
					args: []string{"megagit", "model", "train", "--hard-negatives=2", "--hard-negatives-max-df=5000", "--hard-negatives-skip=1", "--out=m", "--pairs=p"}}},
			{name: "json is not in the recipe", args: []string{"--pairs", "p", "--out", "m", "--json"},
				want: modelTrainOptions{pairs: "p", out: "m", id: "m", checkpoints: filepath.Join("m", ".checkpoints"), cfg: def, quantize: true,
					json: true, args: []string{"megagit", "model", "train", "--out=m", "--pairs=p"}}},
			{name: "warm start", args: []string{"--pairs", "p", "--out", "m", "--init", "base"},
				want: modelTrainOptions{pairs: "p", out: "m", id: "m", checkpoints: filepath.Join("m", ".checkpoints"), cfg: def, quantize: true,
					init: "base", args: []string{"megagit", "model", "train", "--init=base", "--out=m", "--pairs=p"}}},
			{name: "negative hard negatives", args: []string{"--pairs", "p", "--out", "m", "--hard-negatives", "-1"}, wantErr: "must not be negative"},
			{name: "no pairs", args: []string{"--out", "m"}, wantErr: "--pairs and --out are required"},
			{name: "no out", args: []string{"--pairs", "p.jsonl"}, wantErr: "--pairs and --out are required"},
			{name: "batch of one", args: []string{"--pairs", "p", "--out", "m", "--batch", "1"}, wantErr: "--batch at least 2"},
			{name: "no lr", args: []string{"--pairs", "p", "--out", "m", "--lr", "0"}, wantErr: "--lr above 0"},
			{name: "negative max pairs", args: []string{"--pairs", "p", "--out", "m", "--max-pairs", "-1"}, wantErr: "--dim and --epochs must be positive"},
			{name: "an argument", args: []string{"p.jsonl"}, wantErr: "expects no arguments"},
		})
	})
	t.Run("adapt", func(t *testing.T) {
		def := learn.DefaultAdaptConfig()
		tuned := def
		tuned.Epochs, tuned.LR, tuned.Seed = 5, 0.02, 7
		testFlags(t, newModelAdaptCmd, func(o *modelAdaptOptions) { o.app, o.ctx = nil, nil }, []flagCase[modelAdaptOptions]{
			{name: "defaults", want: modelAdaptOptions{fromLedger: true, holdout: 0.2, cfg: def}},
			{name: "every flag", args: []string{"--from-ledger", "--out", "m", "--epochs", "5", "--lr", "0.02", "--holdout", "0.3", "--seed", "7", "--json"},
				want: modelAdaptOptions{fromLedger: true, out: "m", holdout: 0.3, cfg: tuned, json: true}},
			{name: "holdout 0", args: []string{"--holdout", "0"}, wantErr: "--holdout between 0 and 1"},
			{name: "holdout 1", args: []string{"--holdout", "1"}, wantErr: "--holdout between 0 and 1"},
			{name: "no epochs", args: []string{"--epochs", "0"}, wantErr: "--epochs must be positive"},
			{name: "negative lr", args: []string{"--lr", "-1"}, wantErr: "--lr above 0"},
			{name: "not from the ledger", args: []string{"--from-ledger=false"}, wantErr: "only source"},
			{name: "an argument", args: []string{"extra"}, wantErr: "expects no arguments"},
		})
	})
}

// model use has its own --dir; the global -C DIR still names the registry
// because it is taken out before cobra parses.
func TestModelUseDirWithC(t *testing.T) {
	gitHome(t)
	reg := filepath.Join(t.TempDir(), "reg")
	mustRun(t, 0, "init", reg)
	model, err := filepath.Abs(filepath.Join("..", "..", "models", "staticmodel", "models", models.BuiltinID))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.Builtin(); err != nil {
		t.Skip(err) // a checkout without the model files
	}
	mustRun(t, 0, "-C", reg, "model", "use", "--dir", model)
	data, err := os.ReadFile(filepath.Join(reg, ".megagit", "local", "config.yaml"))
	if err != nil || !strings.Contains(string(data), "dir: "+model) {
		t.Fatalf("config after model use --dir: %v\n%s", err, data)
	}
}
