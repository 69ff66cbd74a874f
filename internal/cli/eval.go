package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
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
	grid         []sweepAxis // parsed --sweep flags
	flags        flagLookup
}

// newEvalCmd parses `megagit eval` into options and hands them to runF, or
// to evalRun when runF is nil (tests pass a stub).
func newEvalCmd(a *app, runF func(*evalOptions) error) *cobra.Command {
	opts := &evalOptions{app: a}
	cmd := &cobra.Command{
		Use:   "eval DIR",
		Short: "Benchmark routing on a folder of skills/<id>/SKILL.md and queries.jsonl",
		Long: `eval routes every query of a benchmark folder (DESIGN.md §8) the way the hook
would and reports recall@1/5/10, MRR, coverage with dynamic K (in-distribution
and null separately, and per query kind), mean K, mean injected tokens and
in-process route latency. Settings come from defaults, MEGAGIT_* / MEGA_EVAL_*
and flags, as for megagit route; no registry is needed.

--baseline adds the benchmark READMEs' plain BM25 reference (top 5, always)
and the same ranking cut by seed 000's default dynamic K.

--sweep KEY=V1,V2,... re-ranks the benchmark once per value and prints one
row per setting; several --sweep flags form a grid (their cartesian product).
Keys: model.fusion_w (0: the lexical score alone), model.abs_floor and
dynamic_k.abs_floor. Skills and queries are embedded once for the whole grid.
The best row has the highest overall coverage, ties broken by MRR, then by
grid order; eval prints how to keep it in .megagit/config.yaml.`,
		Example: `  megagit eval bench/skills-dev --sweep model.fusion_w=0.2,0.3,0.4,0.5,0.6
  megagit eval bench/metatool --sweep model.fusion_w=0.3,0.4 --sweep model.abs_floor=0.2,0.25`,
		Args: exactArgs(1, "a benchmark DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
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
			grid, err := parseSweep(opts.sweep)
			if err != nil {
				return usageError{err}
			}
			if grid != nil && (opts.baseline || opts.perQuery != "") {
				return usageError{errors.New("--sweep cannot be combined with --baseline or --per-query")}
			}
			opts.grid = grid
			if runF != nil {
				return runF(opts)
			}
			return evalRun(opts)
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
	return cmd
}

// evalQuery is one line of queries.jsonl.
type evalQuery struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind,omitempty"`
}

// kind is the query's own kind, else single/multi/null from its gold size.
func (q evalQuery) kind() string {
	switch {
	case q.Kind != "":
		return q.Kind
	case len(q.Gold) == 0:
		return "null"
	case len(q.Gold) == 1:
		return "single"
	}
	return "multi"
}

// evalRow is one query's outcome for one system, and its --per-query line.
type evalRow struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	Query     string         `json:"query"`
	Gold      []string       `json:"gold"`
	Emitted   []string       `json:"emitted"`
	Ranked    []string       `json:"ranked"`
	K         int            `json:"k"`
	Reason    ranker.KReason `json:"reason"`
	Tokens    int            `json:"tokens"`
	LatencyMS float64        `json:"latency_ms"`
	Coverage  float64        `json:"coverage"`
	RR        float64        `json:"rr"`

	score ranker.QueryScore
}

// evalBench is a loaded benchmark folder.
type evalBench struct {
	docs    []ranker.Doc
	queries []evalQuery
}

func evalRun(opts *evalOptions) error {
	a := opts.app
	cfg, _, err := config.Load("", opts.flags)
	if err != nil {
		return err
	}
	rs := evalRouteSettings(cfg, opts)
	dir := evalPath(a, opts.dir)
	qfile := filepath.Join(dir, "queries.jsonl")
	if opts.queries != "" {
		qfile = evalPath(a, opts.queries)
	}
	b, err := loadEvalBench(a, dir, qfile)
	if err != nil {
		return err
	}
	head := evalJSON{Benchmark: dir, Queries: qfile, Skills: len(b.docs),
		Settings: evalSettings{Format: rs.Format, Budget: rs.Budget, TopK: rs.TopK, DynamicK: !rs.NoDynamic}}
	if opts.grid != nil {
		return evalSweepRun(opts, cfg, b, rs, head)
	}

	start := time.Now()
	rt := newRouter(b.docs, rankerConfig(cfg), evalSemantic(a, cfg, b.docs), cfg.DynamicK)
	rows := evalRoute(rt, b, rs, newEvalProgress(a.errOut, len(b.queries)))
	out := head
	out.evalSystem = summarizeEval("megagit", rows)
	if opts.baseline {
		text := ranker.BaselineText(opts.baselineText)
		fixed, dyn := runEvalBaseline(b, text)
		plain, plainDyn := summarizeEval("plain-bm25", fixed), summarizeEval("plain-bm25+dynk", dyn)
		plain.Text, plainDyn.Text = string(text), string(text)
		out.Baseline, out.BaselineDynamicK = &plain, &plainDyn
	}
	fmt.Fprintf(a.errOut, "megagit: evaluated %d queries on %d skills in %s\n",
		len(b.queries), len(b.docs), time.Since(start).Round(time.Millisecond))
	if opts.perQuery != "" {
		if err := writePerQuery(evalPath(a, opts.perQuery), rows); err != nil {
			return err
		}
	}
	if opts.json {
		return printJSON(a.out, out)
	}
	return printEvalTable(a.out, out)
}

// evalRouteSettings are the route settings of the config, with eval's flags.
func evalRouteSettings(cfg *config.Config, opts *evalOptions) routeSettings {
	// --top-k, --format and --budget are bound to route.* by config.Load.
	rs := routeSettings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget,
		NoDynamic: opts.noDynamicK || !cfg.Route.Dynamic}
	if opts.topK > 0 {
		rs.TopK = opts.topK
	}
	if opts.format != "" {
		rs.Format = opts.format
	}
	return rs
}

// evalRoute routes every query of b through rt and scores it.
func evalRoute(rt *router, b evalBench, rs routeSettings, progress func(int)) []evalRow {
	rows := make([]evalRow, len(b.queries))
	for i, q := range b.queries {
		t0 := time.Now()
		rr := rt.Route(q.Query, rs)
		lat := time.Since(t0)
		ranked := make([]string, len(rr.Res.Ranked))
		for j, br := range rr.Res.Ranked {
			ranked[j] = br.ID
		}
		rows[i] = newEvalRow(q, b.docs, ranked, rr.Rendered.Included, rr.Rendered.Tokens, rr.Res.Reason, lat)
		progress(i + 1)
	}
	return rows
}

// newEvalRow scores one query for one system.
func newEvalRow(q evalQuery, docs []ranker.Doc, ranked []string, emitted []int, tokens int, reason ranker.KReason, lat time.Duration) evalRow {
	o := ranker.Outcome{ID: q.ID, Gold: q.Gold, Ranked: ranked, Tokens: tokens}
	em := make([]string, len(emitted))
	for j, d := range emitted {
		em[j] = docs[d].ID
	}
	o.Emitted = em
	s := ranker.Score(o)
	return evalRow{
		ID: q.ID, Kind: q.kind(), Query: q.Query, Gold: q.Gold, Emitted: em,
		Ranked: ranked[:min(10, len(ranked))], K: len(em), Reason: reason, Tokens: tokens,
		LatencyMS: float64(lat.Nanoseconds()) / 1e6, Coverage: s.Coverage, RR: s.MRR, score: s,
	}
}

// runEvalBaseline scores the plain BM25 reference: its top 5, and the same
// ranking cut by seed 000's default dynamic K. Both inject a catalog with
// no budget.
func runEvalBaseline(b evalBench, text ranker.BaselineText) (fixed, dyn []evalRow) {
	bl := ranker.NewBaseline(b.docs, text)
	for _, q := range b.queries {
		for _, dynamic := range []bool{false, true} {
			t0 := time.Now()
			order, scores := bl.Rank(q.Query)
			emitted, d := bl.Emit(order, scores, dynamic)
			r := ranker.RenderCatalog(b.docs, emitted, 0)
			lat := time.Since(t0)
			ranked := make([]string, len(order))
			for j, i := range order {
				ranked[j] = b.docs[i].ID
			}
			row := newEvalRow(q, b.docs, ranked, emitted, r.Tokens, d.Reason, lat)
			if dynamic {
				dyn = append(dyn, row)
			} else {
				fixed = append(fixed, row)
			}
		}
	}
	return fixed, dyn
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
