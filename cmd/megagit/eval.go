package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
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
	flags        flagLookup
}

func newEvalCmd(a *app) *cobra.Command { return evalCmd(a, evalRun) }

// evalCmd parses into options and hands them to runF (a stub in tests).
func evalCmd(a *app, runF func(*evalOptions) error) *cobra.Command {
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
and the same ranking cut by seed 000's default dynamic K.`,
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
			return runF(opts)
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
	ID        string   `json:"id"`
	Kind      string   `json:"kind"`
	Query     string   `json:"query"`
	Gold      []string `json:"gold"`
	Emitted   []string `json:"emitted"`
	Ranked    []string `json:"ranked"`
	K         int      `json:"k"`
	Reason    string   `json:"reason"`
	Tokens    int      `json:"tokens"`
	LatencyMS float64  `json:"latency_ms"`
	Coverage  float64  `json:"coverage"`
	RR        float64  `json:"rr"`

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
	// --top-k, --format and --budget are bound to route.* by config.Load.
	topK, format, budget := cfg.Route.TopK, cfg.Route.Format, cfg.Route.Budget
	if opts.topK > 0 {
		topK = opts.topK
	}
	if opts.format != "" {
		format = opts.format
	}
	noDynamic := opts.noDynamicK || !cfg.Route.Dynamic

	dir := evalPath(a, opts.dir)
	qfile := filepath.Join(dir, "queries.jsonl")
	if opts.queries != "" {
		qfile = evalPath(a, opts.queries)
	}
	b, err := loadEvalBench(a, dir, qfile)
	if err != nil {
		return err
	}

	start := time.Now()
	ix := ranker.NewIndex(b.docs, rankerConfig(cfg))
	progress := newEvalProgress(a.errOut, len(b.queries))
	rows := make([]evalRow, len(b.queries))
	for i, q := range b.queries {
		t0 := time.Now()
		rr := routePrompt(ix, b.docs, q.Query, topK, noDynamic, format, budget)
		lat := time.Since(t0)
		ranked := make([]string, len(rr.res.Ranked))
		for j, br := range rr.res.Ranked {
			ranked[j] = br.ID
		}
		rows[i] = newEvalRow(q, b.docs, ranked, rr.rendered.Included, rr.rendered.Tokens, rr.res.Reason, lat)
		progress(i + 1)
	}
	out := evalJSON{
		Benchmark: dir, Queries: qfile, Skills: len(b.docs),
		Settings:   evalSettings{Format: format, Budget: budget, TopK: topK, DynamicK: !noDynamic},
		evalSystem: summarizeEval("megagit", rows),
	}
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

// evalPath makes a relative path relative to -C.
func evalPath(a *app, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.workDir(), p)
}

// loadEvalBench reads DIR/skills through the registry (malformed skills are
// skipped with one warning each) and the queries file.
func loadEvalBench(a *app, dir, qfile string) (evalBench, error) {
	var b evalBench
	skillDir := filepath.Join(dir, "skills")
	skills, problems, err := registry.LoadDir(skillDir)
	if err != nil {
		return b, err
	}
	for _, p := range problems {
		fmt.Fprintf(a.errOut, "megagit: warning: %v\n", p)
	}
	if len(skills) == 0 {
		return b, fmt.Errorf("%w: no skills in %s (want %s/<id>/SKILL.md)", registry.ErrNotFound, skillDir, skillDir)
	}
	b.docs = skillDocs(skills, nil)
	known := map[string]bool{}
	for i := range b.docs {
		// As a registry with root "skills" would inject it.
		b.docs[i].Path = path.Join("skills", skills[i].Path)
		known[b.docs[i].ID] = true
	}
	if b.queries, err = loadEvalQueries(qfile); err != nil {
		return b, err
	}
	unknown, example := 0, ""
	for _, q := range b.queries {
		for _, g := range q.Gold {
			if !known[g] {
				unknown++
				example = g
			}
		}
	}
	if unknown > 0 {
		fmt.Fprintf(a.errOut, "megagit: warning: %s: %d gold ids name no loaded skill (e.g. %q); they count as misses\n", qfile, unknown, example)
	}
	return b, nil
}

// loadEvalQueries parses queries.jsonl; a bad line is an error naming the
// file and line. Blank lines are skipped.
func loadEvalQueries(file string) ([]evalQuery, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []evalQuery
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var raw struct {
			evalQuery
			Gold *[]string `json:"gold"`
		}
		bad := func(msg string) error { return fmt.Errorf("%w: %s:%d: %s", registry.ErrInvalid, file, line, msg) }
		if err := json.Unmarshal(text, &raw); err != nil {
			return nil, bad(err.Error())
		}
		q := raw.evalQuery
		switch {
		case q.ID == "":
			return nil, bad(`missing "id"`)
		case q.Query == "":
			return nil, bad(`missing "query"`)
		case raw.Gold == nil:
			return nil, bad(`missing "gold" (use [] for a null query)`)
		}
		q.Gold = *raw.Gold
		if q.Gold == nil {
			q.Gold = []string{}
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no queries", registry.ErrInvalid, file)
	}
	return out, nil
}

// newEvalRow scores one query for one system.
func newEvalRow(q evalQuery, docs []ranker.Doc, ranked []string, emitted []int, tokens int, reason string, lat time.Duration) evalRow {
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

func writePerQuery(file string, rows []evalRow) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		r.LatencyMS = evalRound3(r.LatencyMS)
		r.Coverage, r.RR = round4(r.Coverage), round4(r.RR)
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

func evalRound3(x float64) float64 { return math.Round(x*1000) / 1000 }

// evalPercentile is the nearest-rank p-th percentile of sorted xs.
func evalPercentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// evalSettings are the route settings the run used.
type evalSettings struct {
	Format   string `json:"format"`
	Budget   int    `json:"budget"`
	TopK     int    `json:"top_k"`
	DynamicK bool   `json:"dynamic_k"`
}

// evalLatency is in-process route latency (rank + render) in milliseconds.
type evalLatency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Mean float64 `json:"mean"`
}

// evalKind is one query kind's figures.
type evalKind struct {
	N        int     `json:"n"`
	Null     bool    `json:"null"`
	Coverage float64 `json:"coverage"`
	R1       float64 `json:"recall_at_1"`
	R5       float64 `json:"recall_at_5"`
	R10      float64 `json:"recall_at_10"`
	MRR      float64 `json:"mrr"`
	MeanK    float64 `json:"mean_k"`
}

// evalSystem is every eval figure of one router.
type evalSystem struct {
	System         string              `json:"system"`
	Text           string              `json:"text,omitempty"`
	Coverage       float64             `json:"coverage"`
	InDistCoverage float64             `json:"in_dist_coverage"`
	NullCoverage   float64             `json:"null_coverage"`
	R1             float64             `json:"recall_at_1"`
	R5             float64             `json:"recall_at_5"`
	R10            float64             `json:"recall_at_10"`
	MRR            float64             `json:"mrr"`
	MeanK          float64             `json:"mean_k"`
	InDistMeanK    float64             `json:"in_dist_mean_k"`
	NullMeanK      float64             `json:"null_mean_k"`
	MeanTokens     float64             `json:"mean_tokens"`
	Latency        evalLatency         `json:"latency_ms"`
	Counts         map[string]int      `json:"counts"`
	Kinds          map[string]evalKind `json:"kinds"`

	kindOrder []string
}

// evalJSON is `eval --json`'s shape: megagit's figures at the top level.
type evalJSON struct {
	Benchmark string       `json:"benchmark"`
	Queries   string       `json:"queries"`
	Skills    int          `json:"skills"`
	Settings  evalSettings `json:"settings"`
	evalSystem
	Baseline         *evalSystem `json:"baseline,omitempty"`
	BaselineDynamicK *evalSystem `json:"baseline_dynamic_k,omitempty"`
}

// summarizeEval macro-averages one system's rows (DESIGN.md §8).
func summarizeEval(system string, rows []evalRow) evalSystem {
	scores := make([]ranker.QueryScore, len(rows))
	lat := make([]float64, len(rows))
	byKind := map[string][]ranker.QueryScore{}
	var sum float64
	for i, r := range rows {
		scores[i] = r.score
		lat[i] = r.LatencyMS
		sum += r.LatencyMS
		byKind[r.Kind] = append(byKind[r.Kind], r.score)
	}
	sort.Float64s(lat)
	rep := ranker.NewReport(scores)
	s := evalSystem{
		System:   system,
		Coverage: round4(rep.Overall.Coverage), InDistCoverage: round4(rep.InDist.Coverage), NullCoverage: round4(rep.Null.Coverage),
		R1: round4(rep.InDist.R1), R5: round4(rep.InDist.R5), R10: round4(rep.InDist.R10), MRR: round4(rep.InDist.MRR),
		MeanK: round4(rep.Overall.MeanK), InDistMeanK: round4(rep.InDist.MeanK), NullMeanK: round4(rep.Null.MeanK),
		MeanTokens: round4(rep.Overall.MeanTokens),
		Counts:     map[string]int{"total": rep.Overall.N, "in_dist": rep.InDist.N, "null": rep.Null.N},
		Kinds:      map[string]evalKind{},
	}
	if len(rows) > 0 {
		s.Latency = evalLatency{P50: evalRound3(evalPercentile(lat, 50)), P95: evalRound3(evalPercentile(lat, 95)), Mean: evalRound3(sum / float64(len(rows)))}
	}
	for k, ks := range byKind {
		sm := ranker.Summarize(ks)
		s.Counts[k] = sm.N
		s.Kinds[k] = evalKind{N: sm.N, Null: sm.InDist == 0, Coverage: round4(sm.Coverage),
			R1: round4(sm.R1), R5: round4(sm.R5), R10: round4(sm.R10), MRR: round4(sm.MRR), MeanK: round4(sm.MeanK)}
		s.kindOrder = append(s.kindOrder, k)
	}
	// In-distribution kinds first, then null kinds, each by name.
	sort.Slice(s.kindOrder, func(i, j int) bool {
		a, b := s.Kinds[s.kindOrder[i]], s.Kinds[s.kindOrder[j]]
		if a.Null != b.Null {
			return !a.Null
		}
		return s.kindOrder[i] < s.kindOrder[j]
	})
	return s
}

// printEvalTable prints metrics as rows and systems as columns, with
// megagit's ratio to plain BM25 when the baseline ran.
func printEvalTable(w io.Writer, out evalJSON) error {
	systems := []*evalSystem{}
	header := []string{"metric"}
	if out.Baseline != nil {
		systems = append(systems, out.Baseline, out.BaselineDynamicK)
		header = append(header, "plain-bm25", "plain-bm25+dynk")
	}
	systems = append(systems, &out.evalSystem)
	header = append(header, "megagit")
	if out.Baseline != nil {
		header = append(header, "megagit/plain-bm25")
	}
	f3 := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	f2 := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	f0 := func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	type metric struct {
		name  string
		get   func(s *evalSystem) float64
		fmt   func(float64) string
		ratio bool
	}
	metrics := []metric{
		{"queries", func(s *evalSystem) float64 { return float64(s.Counts["total"]) }, f0, false},
		{"in-dist queries", func(s *evalSystem) float64 { return float64(s.Counts["in_dist"]) }, f0, false},
		{"null queries", func(s *evalSystem) float64 { return float64(s.Counts["null"]) }, f0, false},
		{"recall@1", func(s *evalSystem) float64 { return s.R1 }, f3, true},
		{"recall@5", func(s *evalSystem) float64 { return s.R5 }, f3, true},
		{"recall@10", func(s *evalSystem) float64 { return s.R10 }, f3, true},
		{"MRR", func(s *evalSystem) float64 { return s.MRR }, f3, true},
		{"coverage", func(s *evalSystem) float64 { return s.Coverage }, f3, true},
		{"in-dist coverage", func(s *evalSystem) float64 { return s.InDistCoverage }, f3, true},
		{"null coverage", func(s *evalSystem) float64 { return s.NullCoverage }, f3, true},
	}
	for _, k := range out.kindOrder {
		metrics = append(metrics, metric{"coverage " + k + " (n=" + strconv.Itoa(out.Kinds[k].N) + ")",
			func(s *evalSystem) float64 { return s.Kinds[k].Coverage }, f3, true})
	}
	metrics = append(metrics,
		metric{"mean K", func(s *evalSystem) float64 { return s.MeanK }, f2, true},
		metric{"in-dist mean K", func(s *evalSystem) float64 { return s.InDistMeanK }, f2, true},
		metric{"null mean K", func(s *evalSystem) float64 { return s.NullMeanK }, f2, true},
		metric{"mean tokens", func(s *evalSystem) float64 { return s.MeanTokens }, f0, true},
		metric{"latency p50 ms", func(s *evalSystem) float64 { return s.Latency.P50 }, f3, false},
		metric{"latency p95 ms", func(s *evalSystem) float64 { return s.Latency.P95 }, f3, false},
	)
	var rows [][]string
	for _, m := range metrics {
		row := []string{m.name}
		for _, s := range systems {
			row = append(row, m.fmt(m.get(s)))
		}
		if out.Baseline != nil {
			ratio := "-"
			if b := m.get(out.Baseline); m.ratio && b > 0 {
				ratio = f2(m.get(&out.evalSystem)/b) + "x"
			}
			row = append(row, ratio)
		}
		rows = append(rows, row)
	}
	return printTable(w, header, rows)
}
