package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/megagit/megagit/ranker"
)

// writePerQuery writes one JSON line per query (--per-query).
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

// printSweepTable prints one row per grid setting, the swept values first.
func printSweepTable(w io.Writer, grid []sweepAxis, out sweepJSON) error {
	var header []string
	for _, ax := range grid {
		header = append(header, ax.key)
	}
	header = append(header, "recall@1", "recall@5", "MRR", "in-dist coverage", "null coverage", "coverage", "mean K", "best")
	f3 := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	rows := make([][]string, len(out.Rows))
	for i, r := range out.Rows {
		for _, ax := range grid {
			rows[i] = append(rows[i], fmtSweepValue(r.Sweep[ax.key]))
		}
		best := ""
		if r.Best {
			best = "*"
		}
		rows[i] = append(rows[i], f3(r.R1), f3(r.R5), f3(r.MRR), f3(r.InDistCoverage), f3(r.NullCoverage),
			f3(r.Coverage), strconv.FormatFloat(r.MeanK, 'f', 2, 64), best)
	}
	return printTable(w, header, rows)
}

func fmtSweepValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sweepLabel names a grid setting, e.g. "model.fusion_w=0.4 model.abs_floor=0.2".
func sweepLabel(grid []sweepAxis, p sweepPoint) string {
	parts := make([]string, len(grid))
	for i, ax := range grid {
		parts[i] = ax.key + "=" + fmtSweepValue(p[i])
	}
	return strings.Join(parts, " ")
}
