package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/ranker"
)

// sweepRow is one grid setting's eval figures.
type sweepRow struct {
	Sweep map[string]float64 `json:"sweep"`
	Best  bool               `json:"best"`
	evalSystem
}

// sweepJSON is `eval --sweep --json`'s shape.
type sweepJSON struct {
	Benchmark string       `json:"benchmark"`
	Queries   string       `json:"queries"`
	Skills    int          `json:"skills"`
	Settings  evalSettings `json:"settings"`
	Model     string       `json:"model"`
	// Base holds the values in effect for the keys the grid does not sweep.
	Base      map[string]float64 `json:"base"`
	Criterion string             `json:"criterion"`
	Best      int                `json:"best"`
	Keep      []string           `json:"keep"`
	Rows      []sweepRow         `json:"rows"`
}

// sweepCriterion is how the best row is chosen (README, "Measuring it").
const sweepCriterion = "highest overall coverage, ties by MRR, then the first in grid order"

// evalSweepRun embeds the benchmark once and re-ranks it per grid setting.
func evalSweepRun(opts *evalOptions, cfg *config.Config, b evalBench, rs routeSettings, head evalJSON) error {
	a := opts.app
	start := time.Now()
	sem, err := sweepSemantic(a, cfg, b, opts.grid)
	if err != nil {
		return err
	}
	embedded := time.Since(start)
	points := sweepPoints(opts.grid)
	out := sweepJSON{Benchmark: head.Benchmark, Queries: head.Queries, Skills: head.Skills, Settings: head.Settings,
		Model: sweepModelName(sem), Base: sweepBase(cfg, sem, opts.grid), Criterion: sweepCriterion}
	var first time.Duration
	for i, p := range points {
		out.Rows = append(out.Rows, sweepRank(cfg, sem, b, rs, opts.grid, p))
		if i == 0 {
			first = time.Since(start) - embedded
		}
	}
	out.Best = bestSweepRow(out.Rows)
	out.Rows[out.Best].Best = true
	out.Keep = sweepKeep(cfg, sem, opts.grid, points[out.Best])
	total := time.Since(start)
	fmt.Fprintf(a.errOut, "megagit: swept %s of %d queries on %d skills with %s in %s (embedding the skills %s, first setting %s%s)\n",
		sweepPlural(len(points), "setting"), len(b.queries), len(b.docs), out.Model, total.Round(time.Millisecond),
		embedded.Round(time.Millisecond), first.Round(time.Millisecond), sweepPerSetting(total-embedded-first, len(points)-1))
	return printSweep(a, opts, out, points[out.Best])
}

// sweepRank routes every query with grid setting p and summarizes the run.
func sweepRank(cfg *config.Config, sem *semantic, b evalBench, rs routeSettings, grid []sweepAxis, p sweepPoint) sweepRow {
	c, s := sweepApply(cfg, sem, grid, p)
	rt := newRouter(b.docs, rankerConfig(c), s, c.DynamicK)
	row := sweepRow{Sweep: map[string]float64{}, evalSystem: summarizeEval("megagit", evalRoute(rt, b, rs, func(int) {}))}
	for i, ax := range grid {
		row.Sweep[ax.key] = p[i]
	}
	return row
}

// printSweep prints the rows (data, stdout), then the best row and how to
// keep it (status, stderr).
func printSweep(a *app, opts *evalOptions, out sweepJSON, best sweepPoint) error {
	var err error
	if opts.json {
		err = printJSON(a.out, out)
	} else {
		err = printSweepTable(a.out, opts.grid, out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.errOut, "megagit: best: %s (%s)\n", sweepLabel(opts.grid, best), sweepCriterion)
	fmt.Fprintf(a.errOut, "megagit: keep it: add %s to .megagit/config.yaml\n", sweepQuoteJoin(out.Keep))
	return nil
}

// sweepPerSetting is ", then D per setting" for the n settings after the first.
func sweepPerSetting(d time.Duration, n int) string {
	if n <= 0 {
		return ""
	}
	return ", then " + (d / time.Duration(n)).Round(time.Millisecond).String() + " per setting"
}

func sweepPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// sweepSemantic embeds b's skills once (nil: lexical routing). The copy it
// returns keeps each query's embedding by text, so every grid setting
// after the first only re-ranks.
func sweepSemantic(a *app, cfg *config.Config, b evalBench, grid []sweepAxis) (*semantic, error) {
	needs := ""
	for _, ax := range grid {
		if strings.HasPrefix(ax.key, "model.") {
			needs = ax.key
			break
		}
	}
	if lexicalOnlyModel(cfg) {
		if needs != "" {
			return nil, usageError{fmt.Errorf("--sweep %s: the model is lexical-only (model.id %q); set MEGAGIT_MODEL_ID or MEGAGIT_MODEL_DIR, or sweep dynamic_k.abs_floor", needs, cfg.Model.ID)}
		}
		return nil, nil
	}
	sem := evalSemantic(a, cfg, b.docs)
	if sem == nil {
		if needs != "" {
			return nil, fmt.Errorf("--sweep %s: the model could not be loaded (see the warning above)", needs)
		}
		return nil, nil
	}
	s := *sem
	s.Emb = &queryMemoEmbedder{Embedder: sem.Emb, queries: map[string][]float32{}}
	return &s, nil
}

// lexicalOnlyModel reports whether the config asks for no semantic model.
func lexicalOnlyModel(cfg *config.Config) bool {
	switch cfg.Model.ID {
	case "", "none", "lexical":
		return cfg.Model.Dir == ""
	}
	return false
}

// sweepModelName is the model the sweep ranks with; "none" when lexical.
func sweepModelName(sem *semantic) string {
	if sem == nil {
		return "none"
	}
	return sem.Emb.ID()
}

// queryMemoEmbedder keeps the query embeddings it computes, by text.
type queryMemoEmbedder struct {
	embedcache.Embedder
	queries map[string][]float32
}

func (m *queryMemoEmbedder) Embed(texts []string, kind embedcache.Kind) ([][]float32, error) {
	if kind != embedcache.Query || len(texts) != 1 {
		return m.Embedder.Embed(texts, kind)
	}
	if v, ok := m.queries[texts[0]]; ok {
		return [][]float32{v}, nil
	}
	vs, err := m.Embedder.Embed(texts, kind)
	if err == nil && len(vs) == 1 {
		m.queries[texts[0]] = vs[0]
	}
	return vs, err
}

// sweepApply is cfg and sem with point p's values; neither is changed.
func sweepApply(cfg *config.Config, sem *semantic, grid []sweepAxis, p sweepPoint) (*config.Config, *semantic) {
	c := *cfg
	var s *semantic
	if sem != nil {
		cp := *sem
		s = &cp
	}
	for i, ax := range grid {
		switch ax.key {
		case sweepFusionW:
			s.Prof.FusionW = p[i]
		case sweepModelFloor:
			s.Prof.AbsFloor = p[i]
		case sweepDynFloor:
			c.DynamicK.AbsFloor = p[i]
		}
	}
	return &c, s
}

// bestSweepRow is the index of the best row by sweepCriterion.
func bestSweepRow(rows []sweepRow) int {
	best := 0
	for i, r := range rows {
		b := rows[best]
		if r.Coverage > b.Coverage || r.Coverage == b.Coverage && r.MRR > b.MRR {
			best = i
		}
	}
	return best
}

// sweepBase is the value in effect of each key the grid leaves alone.
func sweepBase(cfg *config.Config, sem *semantic, grid []sweepAxis) map[string]float64 {
	base := map[string]float64{}
	if sem != nil {
		base[sweepFusionW], base[sweepModelFloor] = sem.Prof.FusionW, sem.Prof.AbsFloor
	}
	if cfg.DynamicK.AbsFloor > 0 {
		base[sweepDynFloor] = cfg.DynamicK.AbsFloor
	}
	for _, ax := range grid {
		delete(base, ax.key)
	}
	return base
}

// sweepKeep is the config.yaml text that keeps setting p. A fusion weight
// of 0 ranks lexically, which is model.id none (with the model's K tier,
// when it is not the lexical one).
func sweepKeep(cfg *config.Config, sem *semantic, grid []sweepAxis, p sweepPoint) []string {
	var model, dyn []string
	lexical := false
	for i, ax := range grid {
		v := fmtSweepValue(p[i])
		switch {
		case ax.key == sweepFusionW && p[i] == 0:
			lexical = true
		case ax.key == sweepDynFloor:
			dyn = append(dyn, "abs_floor: "+v)
		default:
			model = append(model, strings.TrimPrefix(ax.key, "model.")+": "+v)
		}
	}
	if lexical {
		model = []string{"id: none"}
		if t := sem.Prof.Tier; cfg.DynamicK.Tier == "" && t != "" && t != ranker.LexicalTier {
			dyn = append([]string{"tier: " + t}, dyn...)
		}
	}
	var keep []string
	if len(model) > 0 {
		keep = append(keep, "model: {"+strings.Join(model, ", ")+"}")
	}
	if len(dyn) > 0 {
		keep = append(keep, "dynamic_k: {"+strings.Join(dyn, ", ")+"}")
	}
	return keep
}

// sweepQuoteJoin is `"a" and "b"`.
func sweepQuoteJoin(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = strconv.Quote(p)
	}
	return strings.Join(q, " and ")
}
