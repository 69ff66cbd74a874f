package eval

import (
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/dense"
)

// SweepRow is one grid setting's eval figures.
type SweepRow struct {
	Sweep map[string]float64 `json:"sweep"`
	Best  bool               `json:"best"`
	System
}

// SweepReport is `eval --sweep --json`'s shape.
type SweepReport struct {
	Head
	Model string `json:"model"`
	// Base holds the values in effect for the keys the grid does not sweep.
	Base      map[string]float64 `json:"base"`
	Criterion string             `json:"criterion"`
	Best      int                `json:"best"`
	Keep      []string           `json:"keep"`
	Rows      []SweepRow         `json:"rows"`

	// First is how long the first setting took; the rest only re-rank.
	First time.Duration `json:"-"`
	grid  []Axis
}

// Criterion is how the best row is chosen (docs/routing.md).
const Criterion = "highest overall coverage, ties by MRR, then the first in grid order"

// Sweep routes every query of b once per grid setting, the settings
// applied to o.Config and o.Dense (neither is changed). The dense channel
// embeds each query once for the whole grid.
func Sweep(b *Bench, o Options, grid []Axis) *SweepReport {
	start := time.Now()
	if o.Dense != nil {
		s := *o.Dense
		s.Emb = &queryMemoEmbedder{Embedder: o.Dense.Emb, queries: map[string][]float32{}}
		o.Dense = &s
	}
	points := sweepPoints(grid)
	out := &SweepReport{Head: b.Head(o.Settings), Model: modelName(o.Dense), Base: base(o.Config, o.Dense, grid),
		Criterion: Criterion, grid: grid}
	for i, p := range points {
		out.Rows = append(out.Rows, sweepRank(b, o, grid, p))
		if i == 0 {
			out.First = time.Since(start)
		}
	}
	out.Best = bestRow(out.Rows)
	out.Rows[out.Best].Best = true
	out.Keep = keep(o.Config, o.Dense, grid, points[out.Best])
	return out
}

// sweepRank routes every query with grid setting p and summarizes the run.
func sweepRank(b *Bench, o Options, grid []Axis, p point) SweepRow {
	cfg, sem := apply(o.Config, o.Dense, grid, p)
	rt := o.Router(b.Docs, cfg, sem)
	row := SweepRow{Sweep: map[string]float64{}, System: Summarize("megagit", routeAll(rt, b, o.Settings, nil))}
	for i, ax := range grid {
		row.Sweep[ax.Key] = p[i]
	}
	return row
}

// modelName is the model the sweep ranks with; "none" when lexical.
func modelName(sem *dense.Channel) string {
	if sem == nil {
		return "none"
	}
	return sem.Emb.ID()
}

// queryMemoEmbedder keeps the query embeddings it computes, by text.
type queryMemoEmbedder struct {
	models.Embedder
	queries map[string][]float32
}

func (m *queryMemoEmbedder) Embed(texts []string, kind models.Kind) ([][]float32, error) {
	if kind != models.Query || len(texts) != 1 {
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

// apply is cfg and sem with point p's values; neither is changed.
func apply(cfg *config.Config, sem *dense.Channel, grid []Axis, p point) (*config.Config, *dense.Channel) {
	c := *cfg
	var s *dense.Channel
	if sem != nil {
		cp := *sem
		s = &cp
	}
	for i, ax := range grid {
		switch ax.Key {
		case KeyFusionW:
			s.Prof.FusionW = p[i]
		case KeyModelFloor:
			s.Prof.AbsFloor = p[i]
		case KeyDynFloor:
			c.DynamicK.AbsFloor = p[i]
		}
	}
	return &c, s
}

// bestRow is the index of the best row by Criterion.
func bestRow(rows []SweepRow) int {
	best := 0
	for i, r := range rows {
		b := rows[best]
		if r.Coverage > b.Coverage || r.Coverage == b.Coverage && r.MRR > b.MRR {
			best = i
		}
	}
	return best
}

// base is the value in effect of each key the grid leaves alone.
func base(cfg *config.Config, sem *dense.Channel, grid []Axis) map[string]float64 {
	base := map[string]float64{}
	if sem != nil {
		base[KeyFusionW], base[KeyModelFloor] = sem.Prof.FusionW, sem.Prof.AbsFloor
	}
	if cfg.DynamicK.AbsFloor > 0 {
		base[KeyDynFloor] = cfg.DynamicK.AbsFloor
	}
	for _, ax := range grid {
		delete(base, ax.Key)
	}
	return base
}

// keep is the config.yaml text that keeps setting p. A fusion weight of 0
// ranks lexically, which is model.id none (with the model's K tier, when
// it is not the lexical one).
func keep(cfg *config.Config, sem *dense.Channel, grid []Axis, p point) []string {
	var model, dyn []string
	lexical := false
	for i, ax := range grid {
		v := fmtValue(p[i])
		switch {
		case ax.Key == KeyFusionW && p[i] == 0:
			lexical = true
		case ax.Key == KeyDynFloor:
			dyn = append(dyn, "abs_floor: "+v)
		default:
			model = append(model, strings.TrimPrefix(ax.Key, "model.")+": "+v)
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

// BestSetting names the best row's setting, e.g. "model.fusion_w=0.4
// model.abs_floor=0.2".
func (r *SweepReport) BestSetting() string {
	parts := make([]string, len(r.grid))
	for i, ax := range r.grid {
		parts[i] = ax.Key + "=" + fmtValue(r.Rows[r.Best].Sweep[ax.Key])
	}
	return strings.Join(parts, " ")
}

// Table is one row per grid setting, the swept values first.
func (r *SweepReport) Table() (header []string, rows [][]string) {
	for _, ax := range r.grid {
		header = append(header, ax.Key)
	}
	header = append(header, "recall@1", "recall@5", "MRR", "in-dist coverage", "null coverage", "coverage", "mean K", "best")
	f3 := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	rows = make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		for _, ax := range r.grid {
			rows[i] = append(rows[i], fmtValue(row.Sweep[ax.Key]))
		}
		best := ""
		if row.Best {
			best = "*"
		}
		rows[i] = append(rows[i], f3(row.R1), f3(row.R5), f3(row.MRR), f3(row.InDistCoverage), f3(row.NullCoverage),
			f3(row.Coverage), strconv.FormatFloat(row.MeanK, 'f', 2, 64), best)
	}
	return header, rows
}
