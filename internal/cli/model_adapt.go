package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/learn"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type modelAdaptOptions struct {
	app        *app
	ctx        context.Context
	fromLedger bool
	out        string
	holdout    float64
	cfg        learn.AdaptConfig
	json       bool
}

// newModelAdaptCmd parses `megagit model adapt` into options and hands them
// to runF, or to modelAdaptRun when runF is nil (tests pass a stub).
func newModelAdaptCmd(a *app, runF func(*modelAdaptOptions) error) *cobra.Command {
	opts := &modelAdaptOptions{app: a, fromLedger: true, holdout: 0.2, cfg: learn.DefaultAdaptConfig()}
	cmd := &cobra.Command{
		Use:   "adapt [--from-ledger] [--out DIR]",
		Short: "Fine-tune the active static model on this registry's verdicts",
		Long: `adapt fine-tunes the active static model (the built-in one or model.dir) on
the registry's explicit verdicts: each helpful context is pulled towards the
text routing embeds for its skill, each harmful context is a hard negative
for its skill. Contexts recorded as both helpful and harmful for a skill are
dropped.

About --holdout of the helpful contexts (at least one per skill that has two
or more, chosen by a hash of skill and context) are held back and never
trained on; adapt ranks every skill for them before and after and prints
recall@1, recall@5 and MRR, plus how often a harmful context ranks its skill
first. The new model is written only when held-back MRR improves (or stays
equal while recall@1 improves) and the harmful rate does not rise; otherwise
the old model is kept and nothing is written.

The output is a model folder (int8, like the built-in model). Inside the
registry (the default, .megagit/models/<id>/) it is committed so the team
shares it; switch to it with "megagit model use --dir DIR".`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := opts.cfg
			if !opts.fromLedger {
				return usageError{errors.New("--from-ledger is the only source of examples for now")}
			}
			if c.Epochs < 1 || !(c.LR > 0) || !(opts.holdout > 0 && opts.holdout < 1) {
				return usageError{errors.New("--epochs must be positive, --lr above 0 and --holdout between 0 and 1")}
			}
			opts.ctx = cmd.Context()
			return orRun(runF, modelAdaptRun)(opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.fromLedger, "from-ledger", true, "learn from the ledgers' explicit verdicts with a context")
	f.StringVar(&opts.out, "out", "", "model folder to write (default .megagit/models/<id> in the registry, committed)")
	f.IntVar(&opts.cfg.Epochs, "epochs", opts.cfg.Epochs, "passes over the helpful contexts")
	f.Float64Var(&opts.cfg.LR, "lr", opts.cfg.LR, "peak learning rate (warm start: keep it small)")
	f.Float64Var(&opts.holdout, "holdout", opts.holdout, "share of helpful contexts held back to judge the result")
	f.Uint64Var(&opts.cfg.Seed, "seed", opts.cfg.Seed, "random seed (shuffles)")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	return cmd
}

// adaptReport is what `model adapt --json` prints.
type adaptReport struct {
	Base          string             `json:"base_model"`
	Helpful       int                `json:"helpful_contexts"`
	Trained       int                `json:"trained"`
	HeldBack      int                `json:"held_back"`
	Harmful       int                `json:"harmful_contexts"`
	Contradictory int                `json:"contradictory_dropped"`
	Before        learn.AdaptMetrics `json:"before"`
	After         learn.AdaptMetrics `json:"after"`
	Kept          string             `json:"kept"` // "new" or "old"
	Why           string             `json:"why"`
	ID            string             `json:"id,omitempty"`
	Out           string             `json:"out,omitempty"`
	Commit        string             `json:"commit,omitempty"`
}

func modelAdaptRun(opts *modelAdaptOptions) error {
	ctx := opts.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	base, err := activeStatic(e, a.say)
	if err != nil {
		return err
	}
	data, err := registryAdaptData(a, e, opts.holdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.errOut, "megagit: %d helpful contexts (%d trained, %d held back) over %d skills, %d harmful, %d contradictory dropped\n",
		data.Helpful(), len(data.Train), len(data.Held), data.SkillsWithEvidence, len(data.Harmful), data.Contradictory)
	res, err := learn.Adapt(ctx, base, data, opts.cfg, nil)
	if errors.Is(err, learn.ErrTooLittleEvidence) {
		return withHint(fmt.Errorf("%w: %w", errkind.ErrInvalid, err),
			fmt.Sprintf("record verdicts with a context (megagit verdict NAME HELPFUL --context \"the prompt\"); adapt needs %d or more helpful contexts and a skill with two or more", learn.MinAdaptHelpful))
	}
	if err != nil {
		return err
	}
	rep := adaptReport{Base: base.ID(), Helpful: data.Helpful(), Trained: len(data.Train), HeldBack: len(data.Held),
		Harmful: len(data.Harmful), Contradictory: data.Contradictory, Before: res.Before, After: res.After, Kept: "old", Why: res.Why}
	if res.Keep {
		rep.Kept = "new"
		rep.ID = learn.AdaptedID(base.ID(), a.now(), res.Table)
		saved, err := learn.SaveAdapted(e.Reg, opts.out, rep.ID, base, data, res, opts.holdout)
		if err != nil {
			return err
		}
		rep.Out, rep.Commit = displayPath(saved.Dir), saved.Commit
	}
	if opts.json {
		return printJSON(a.out, rep)
	}
	if err := printAdaptTable(a, rep); err != nil {
		return err
	}
	if !res.Keep {
		a.say(fmt.Sprintf("megagit: keeping %s: %s; nothing written", base.ID(), res.Why))
		return nil
	}
	fmt.Fprintf(a.errOut, "megagit: %s; wrote %s to %s", res.Why, rep.ID, rep.Out)
	if rep.Commit != "" {
		fmt.Fprintf(a.errOut, " (commit %s)", rep.Commit[:12])
	}
	fmt.Fprintln(a.errOut)
	fmt.Fprintf(a.errOut, "megagit: hint: switch to it with `megagit model use --dir %s`\n", rep.Out)
	return nil
}

// activeStatic is the model routing uses here, which must be a static one.
func activeStatic(e *workspace.Workspace, say func(string)) (*models.StaticModel, error) {
	emb, err := activeEmbedder(e, say)
	if err != nil {
		return nil, err
	}
	if emb == nil {
		return nil, withHint(fmt.Errorf("%w: no semantic model is active (model.id is %q)", config.ErrInvalid, e.Cfg.Model.ID),
			"choose one with `megagit model use "+models.BuiltinID+"` or `megagit model use --dir DIR`")
	}
	m, ok := emb.(*models.StaticModel)
	if !ok {
		return nil, fmt.Errorf("%w: model %s is not a static model; adapt fine-tunes static models only", config.ErrInvalid, emb.ID())
	}
	return m, nil
}

// registryAdaptData reads the skills (as routing embeds them) and the
// explicit verdicts with a context.
func registryAdaptData(a *app, e *workspace.Workspace, holdout float64) (learn.AdaptData, error) {
	skills, problems, err := e.Reg.Skills()
	if err != nil {
		return learn.AdaptData{}, err
	}
	a.warnProblems(problems)
	ledgers, err := e.Reg.Ledgers()
	if err != nil {
		return learn.AdaptData{}, err
	}
	docs := workspace.SkillDocs(skills, ledgers)
	as := make([]learn.AdaptSkill, len(docs))
	for i, d := range docs {
		full, name := dense.DocTexts(d)
		as[i] = learn.AdaptSkill{ID: d.ID, Full: full, Name: name}
	}
	return learn.BuildAdaptData(as, learn.LedgerVerdicts(ledgers), holdout), nil
}

// displayPath is p relative to the current directory when below it, so the
// printed `model use --dir` hint works as typed.
func displayPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	return p
}

// printAdaptTable prints the before/after metrics.
func printAdaptTable(a *app, rep adaptReport) error {
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	b, n := rep.Before, rep.After
	rows := [][]string{
		{fmt.Sprintf("held-back recall@1 (%d)", b.Held), f(b.R1), f(n.R1)},
		{fmt.Sprintf("held-back recall@5 (%d)", b.Held), f(b.R5), f(n.R5)},
		{fmt.Sprintf("held-back MRR (%d)", b.Held), f(b.MRR), f(n.MRR)},
		{fmt.Sprintf("harmful top-1 rate (%d)", b.Harmful), f(b.HarmfulTop1), f(n.HarmfulTop1)},
	}
	return printTable(a.out, []string{"METRIC", "BEFORE (" + rep.Base + ")", "AFTER"}, rows)
}
