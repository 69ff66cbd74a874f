package eval

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
)

// WritePerQuery writes one JSON line per query (--per-query), its figures
// rounded as the report rounds them.
func WritePerQuery(file string, rows []Row) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		r.LatencyMS = round3(r.LatencyMS)
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

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func round4(x float64) float64 { return ranker.Round4(x) }

// percentile is the nearest-rank p-th percentile of sorted xs.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Settings are the route settings the run used.
type Settings struct {
	Format   string `json:"format"`
	Budget   int    `json:"budget"`
	TopK     int    `json:"top_k"`
	DynamicK bool   `json:"dynamic_k"`
}

// Latency is in-process route latency (rank + render) in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Mean float64 `json:"mean"`
}

// Kind is one query kind's figures.
type Kind struct {
	N        int     `json:"n"`
	Null     bool    `json:"null"`
	Coverage float64 `json:"coverage"`
	R1       float64 `json:"recall_at_1"`
	R5       float64 `json:"recall_at_5"`
	R10      float64 `json:"recall_at_10"`
	MRR      float64 `json:"mrr"`
	MeanK    float64 `json:"mean_k"`
}

// System is every eval figure of one routing method (megagit, or a
// baseline).
type System struct {
	System         string          `json:"system"`
	Text           string          `json:"text,omitempty"`
	Coverage       float64         `json:"coverage"`
	InDistCoverage float64         `json:"in_dist_coverage"`
	NullCoverage   float64         `json:"null_coverage"`
	R1             float64         `json:"recall_at_1"`
	R5             float64         `json:"recall_at_5"`
	R10            float64         `json:"recall_at_10"`
	MRR            float64         `json:"mrr"`
	MeanK          float64         `json:"mean_k"`
	InDistMeanK    float64         `json:"in_dist_mean_k"`
	NullMeanK      float64         `json:"null_mean_k"`
	MeanTokens     float64         `json:"mean_tokens"`
	Latency        Latency         `json:"latency_ms"`
	Counts         map[string]int  `json:"counts"`
	Kinds          map[string]Kind `json:"kinds"`

	kindOrder []string
}

// Head says what was evaluated: the benchmark, its size and the settings.
type Head struct {
	Benchmark string   `json:"benchmark"`
	Queries   string   `json:"queries"`
	Skills    int      `json:"skills"`
	Settings  Settings `json:"settings"`
}

// Head is the report head of a run of b with settings rs.
func (b *Bench) Head(rs route.Settings) Head {
	return Head{Benchmark: b.Dir, Queries: b.QueryFile, Skills: len(b.Docs),
		Settings: Settings{Format: rs.Format, Budget: rs.Budget, TopK: rs.TopK, DynamicK: !rs.NoDynamic}}
}

// Report is `eval --json`'s shape: megagit's figures at the top level.
type Report struct {
	Head
	System
	Baseline         *System `json:"baseline,omitempty"`
	BaselineDynamicK *System `json:"baseline_dynamic_k,omitempty"`
	// Context compares megagit's context per prompt with the agent's
	// native listing of every skill.
	Context *Context `json:"context,omitempty"`
}

// Summarize macro-averages one system's rows: every prompt weighs the same,
// whatever its number of gold skills.
func Summarize(system string, rows []Row) System {
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
	s := System{
		System:   system,
		Coverage: round4(rep.Overall.Coverage), InDistCoverage: round4(rep.InDist.Coverage), NullCoverage: round4(rep.Null.Coverage),
		R1: round4(rep.InDist.R1), R5: round4(rep.InDist.R5), R10: round4(rep.InDist.R10), MRR: round4(rep.InDist.MRR),
		MeanK: round4(rep.Overall.MeanK), InDistMeanK: round4(rep.InDist.MeanK), NullMeanK: round4(rep.Null.MeanK),
		MeanTokens: round4(rep.Overall.MeanTokens),
		Counts:     map[string]int{"total": rep.Overall.N, "in_dist": rep.InDist.N, "null": rep.Null.N},
		Kinds:      map[string]Kind{},
	}
	if len(rows) > 0 {
		s.Latency = Latency{P50: round3(percentile(lat, 50)), P95: round3(percentile(lat, 95)), Mean: round3(sum / float64(len(rows)))}
	}
	for k, ks := range byKind {
		sm := ranker.Summarize(ks)
		s.Counts[k] = sm.N
		s.Kinds[k] = Kind{N: sm.N, Null: sm.InDist == 0, Coverage: round4(sm.Coverage),
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

// Table is the report as rows of metrics and columns of systems, with
// megagit's ratio to plain BM25 when the baseline ran.
func (out *Report) Table() (header []string, rows [][]string) {
	systems := []*System{}
	header = []string{"metric"}
	if out.Baseline != nil {
		systems = append(systems, out.Baseline, out.BaselineDynamicK)
		header = append(header, "plain-bm25", "plain-bm25+dynk")
	}
	systems = append(systems, &out.System)
	header = append(header, "megagit")
	if out.Baseline != nil {
		header = append(header, "megagit/plain-bm25")
	}
	f3 := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	f2 := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	f0 := func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	type metric struct {
		name  string
		get   func(s *System) float64
		fmt   func(float64) string
		ratio bool
	}
	metrics := []metric{
		{"queries", func(s *System) float64 { return float64(s.Counts["total"]) }, f0, false},
		{"in-dist queries", func(s *System) float64 { return float64(s.Counts["in_dist"]) }, f0, false},
		{"null queries", func(s *System) float64 { return float64(s.Counts["null"]) }, f0, false},
		{"recall@1", func(s *System) float64 { return s.R1 }, f3, true},
		{"recall@5", func(s *System) float64 { return s.R5 }, f3, true},
		{"recall@10", func(s *System) float64 { return s.R10 }, f3, true},
		{"MRR", func(s *System) float64 { return s.MRR }, f3, true},
		{"coverage", func(s *System) float64 { return s.Coverage }, f3, true},
		{"in-dist coverage", func(s *System) float64 { return s.InDistCoverage }, f3, true},
		{"null coverage", func(s *System) float64 { return s.NullCoverage }, f3, true},
	}
	for _, k := range out.kindOrder {
		metrics = append(metrics, metric{"coverage " + k + " (n=" + strconv.Itoa(out.Kinds[k].N) + ")",
			func(s *System) float64 { return s.Kinds[k].Coverage }, f3, true})
	}
	metrics = append(metrics,
		metric{"mean K", func(s *System) float64 { return s.MeanK }, f2, true},
		metric{"in-dist mean K", func(s *System) float64 { return s.InDistMeanK }, f2, true},
		metric{"null mean K", func(s *System) float64 { return s.NullMeanK }, f2, true},
		metric{"mean tokens", func(s *System) float64 { return s.MeanTokens }, f0, true},
		metric{"latency p50 ms", func(s *System) float64 { return s.Latency.P50 }, f3, false},
		metric{"latency p95 ms", func(s *System) float64 { return s.Latency.P95 }, f3, false},
	)
	for _, m := range metrics {
		row := []string{m.name}
		for _, s := range systems {
			row = append(row, m.fmt(m.get(s)))
		}
		if out.Baseline != nil {
			ratio := "-"
			if b := m.get(out.Baseline); m.ratio && b > 0 {
				ratio = f2(m.get(&out.System)/b) + "x"
			}
			row = append(row, ratio)
		}
		rows = append(rows, row)
	}
	return header, rows
}
