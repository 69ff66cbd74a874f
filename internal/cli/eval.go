package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type evalOptions struct {
	app          *app
	dir          string
	queries      string
	json         bool
	perQuery     string
	baseline     bool
	baselineText string
	topK         int
	noDynamicK   bool
	format       string
	budget       int
	sweep        []string    // raw --sweep flags
	grid         []eval.Axis // parsed --sweep flags
	fit          string      // --fit FILE
	below        string      // --below FILE
	nullShare    float64
	dirs         []string // every DIR (several only with --fit)
	flags        flagLookup
}

// newEvalCmd parses `megagit eval` into options and hands them to runF, or
// to evalRun when runF is nil (tests pass a stub).
func newEvalCmd(a *app, runF func(*evalOptions) error) *cobra.Command {
	opts := &evalOptions{app: a}
	cmd := &cobra.Command{
		Use:   "eval DIR",
		Short: "Benchmark routing on a folder of skills and queries",
		Long: `eval routes every query of a benchmark folder the way the prompt hook would
and reports recall@1/5/10, MRR, coverage with dynamic K (in-distribution
and null separately, and per query kind), mean K, mean injected tokens and
in-process route latency. Settings come from defaults, MEGAGIT_* / MEGA_EVAL_*
and flags, as for megagit route; no registry is needed.

A benchmark folder holds DIR/skills/<id>/SKILL.md, one folder per skill, and
DIR/queries.jsonl, one query a line:

  {"id": "q1", "query": "the prompt", "gold": ["<id>", ...], "kind": "single"}

gold lists the skills that should be injected; [] means the right answer is
nothing (a null query). kind is optional (default single, multi or null from
the size of gold) and groups the per-kind figures.

--baseline adds a plain BM25 reference (no stemming, over name + description
unless --baseline-text says otherwise; its top 5, always) and the same
ranking cut by the default dynamic K.

--sweep KEY=V1,V2,... re-ranks the benchmark once per value and prints one
row per setting; several --sweep flags form a grid (their cartesian product).
Keys: model.fusion_w (0: the lexical score alone), model.abs_floor and
dynamic_k.abs_floor. Skills and queries are embedded once for the whole grid.
The best row has the highest overall coverage, ties broken by MRR, then by
grid order; eval prints how to keep it in .megagit/config.yaml.

--fit FILE fits the abstention gate (whether anything fits a prompt) to one
or more benchmark folders, ideally the same skills at several catalog sizes,
and writes it to FILE; with several folders, --queries names a file inside
each. A query whose gold skill ranks first counts as "something fits", a
null query as "nothing fits", and a query whose gold ranks lower is left
out; --null-share weights them as the share of prompts that need no skill,
within each folder, and every folder weighs the same. --below FILE nests
the gate in FILE (fitted on smaller catalogs) under the new one: it decides
for catalogs smaller than the new one's smallest. eval then prints each
folder's coverage with the current gate and with the fitted one;
dynamic_k.gate: FILE in .megagit/config.yaml routes with it.`,
		Example: examples(
			"megagit eval bench --baseline", "with a plain BM25 reference",
			"megagit eval bench --sweep model.fusion_w=0.2,0.4,0.6", "one row per fusion weight",
			"megagit eval bench --sweep model.fusion_w=0.3,0.4 --sweep model.abs_floor=0.2,0.3", "a grid of both",
			"megagit eval --fit gate.json --queries dev.jsonl small large", "fit the abstention gate to two",
		),
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.fit != "" && len(args) > 0 {
				return nil // --fit takes several
			}
			return exactArgs(1, "a benchmark DIR (several only with --fit)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.dirs = args[0], args
			if opts.fit != "" && (len(opts.sweep) > 0 || opts.baseline || opts.perQuery != "") {
				return usageError{errors.New("--fit cannot be combined with --sweep, --baseline or --per-query")}
			}
			if opts.below != "" && opts.fit == "" {
				return usageError{errors.New("--below needs --fit")}
			}
			if !(opts.nullShare > 0 && opts.nullShare < 1) {
				return usageError{fmt.Errorf("--null-share %v: want a share strictly between 0 and 1", opts.nullShare)}
			}
			opts.flags = cmd.Flags()
			if opts.format != "" && opts.format != "catalog" && opts.format != "compose" {
				return usageError{fmt.Errorf("--format %q: want catalog or compose", opts.format)}
			}
			if _, err := ranker.ParseBaselineText(opts.baselineText); err != nil {
				return usageError{fmt.Errorf("--baseline-text: %w", err)}
			}
			if opts.topK < 0 || opts.budget < 0 {
				return usageError{errors.New("--top-k and --budget must not be negative")}
			}
			grid, err := eval.ParseSweep(opts.sweep)
			if err != nil {
				return usageError{err}
			}
			if grid != nil && (opts.baseline || opts.perQuery != "") {
				return usageError{errors.New("--sweep cannot be combined with --baseline or --per-query")}
			}
			opts.grid = grid
			return orRun(runF, evalRun)(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.queries, "queries", "", "queries file (default DIR/queries.jsonl)")
	f.BoolVar(&opts.json, "json", false, "print JSON")
	f.StringVar(&opts.perQuery, "per-query", "", "write one JSON line per query to `FILE`")
	f.BoolVar(&opts.baseline, "baseline", false, "also score the plain BM25 reference")
	f.StringVar(&opts.baselineText, "baseline-text", string(ranker.BaselineNameDescription),
		"text the plain BM25 reference indexes: name+description or name+description+body")
	f.IntVar(&opts.topK, "top-k", 0, "cap on emitted skills (the fixed K with --no-dynamic-k)")
	f.BoolVar(&opts.noDynamicK, "no-dynamic-k", false, "always emit --top-k skills")
	f.StringVar(&opts.format, "format", "", "catalog or compose: what the injected text (and its tokens) looks like")
	f.IntVar(&opts.budget, "budget", 0, "token budget of the injected text")
	f.StringArrayVar(&opts.sweep, "sweep", nil, "re-rank for each `KEY=V1,V2,...` (repeat for a grid)")
	f.StringVar(&opts.fit, "fit", "", "fit the abstention gate to the benchmark folders and write it to `FILE`")
	f.Float64Var(&opts.nullShare, "null-share", ranker.DefaultGateFit().NullShare, "with --fit: the share of prompts that need no skill")
	f.StringVar(&opts.below, "below", "", "with --fit: keep the gate in `FILE` for catalogs smaller than the fitted one's smallest")
	return cmd
}

func evalRun(opts *evalOptions) error {
	a := opts.app
	cfg, _, err := config.Load("", opts.flags)
	if err != nil {
		return err
	}
	rs := evalRouteSettings(cfg, opts)
	if opts.fit != "" {
		return evalFitRun(opts, cfg, rs)
	}
	dir := evalPath(a, opts.dir)
	qfile := filepath.Join(dir, "queries.jsonl")
	if opts.queries != "" {
		qfile = evalPath(a, opts.queries)
	}
	warn := func(msg string) { a.say("megagit: warning: " + msg) }
	b, err := eval.Load(dir, qfile, func(s []*registry.Skill) []ranker.Doc { return workspace.SkillDocs(s, nil) }, warn)
	if err != nil {
		return err
	}
	o := eval.Options{Config: cfg, Settings: rs, Router: workspace.NewRouter}
	if opts.grid != nil {
		return evalSweepRun(opts, b, o)
	}

	start := time.Now()
	o.Dense = dense.ForBench(cfg, b.Docs, a.say)
	o.Progress = newEvalProgress(a.errOut, len(b.Queries))
	rows := eval.Run(b, o)
	out := eval.Report{Head: b.Head(rs), System: eval.Summarize("megagit", rows)}
	cost := eval.ContextCost(b.Docs, out.MeanTokens)
	out.Context = &cost
	if opts.baseline {
		plain, plainDyn := eval.Baselines(b, ranker.BaselineText(opts.baselineText))
		out.Baseline, out.BaselineDynamicK = &plain, &plainDyn
	}
	fmt.Fprintf(a.errOut, "megagit: evaluated %d queries on %d skills in %s\n",
		len(b.Queries), len(b.Docs), time.Since(start).Round(time.Millisecond))
	if opts.perQuery != "" {
		if err := eval.WritePerQuery(evalPath(a, opts.perQuery), rows); err != nil {
			return err
		}
	}
	if opts.json {
		return printJSON(a.out, out)
	}
	header, table := out.Table()
	if err := printTable(a.out, header, table); err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.out, cost.String())
	return err
}

// evalPath makes a relative path relative to -C.
func evalPath(a *app, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.workDir(), p)
}

// evalRouteSettings are the route settings of the config, with eval's flags.
func evalRouteSettings(cfg *config.Config, opts *evalOptions) route.Settings {
	// --top-k, --format and --budget are bound to route.* by config.Load.
	rs := route.Settings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget,
		NoDynamic: opts.noDynamicK || !cfg.Route.Dynamic}
	if opts.topK > 0 {
		rs.TopK = opts.topK
	}
	if opts.format != "" {
		rs.Format = opts.format
	}
	return rs
}

// newEvalProgress reports progress on a terminal for long runs only.
func newEvalProgress(w io.Writer, total int) func(done int) {
	if total < 5000 || !isTTY(w) {
		return func(int) {}
	}
	return func(done int) {
		if done%500 == 0 || done == total {
			fmt.Fprintf(w, "\rmegagit: %d/%d queries", done, total)
			if done == total {
				fmt.Fprintln(w)
			}
		}
	}
}
