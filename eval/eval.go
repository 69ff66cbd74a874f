// Package eval is `megagit eval`'s benchmark harness: it loads a benchmark
// folder (skills/<id>/SKILL.md and queries.jsonl: {"id", "query", "gold":
// [ids]}, an empty gold for a prompt that needs nothing), routes
// every query the way the prompt hook would, scores the outcomes with
// ranker's metrics, sweeps settings over a grid, and builds the reports
// the command prints. Routers are built by the command (Options.Router),
// so eval knows nothing of how a registry's config becomes one.
package eval

import (
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
)

// Options are how a benchmark is routed.
type Options struct {
	Config   *config.Config
	Settings route.Settings
	// Dense is the semantic model's channel over the benchmark's docs;
	// nil routes lexically.
	Dense *dense.Channel
	// Router builds the router a command would route docs with under cfg
	// and a dense channel; the command supplies it, so eval routes as it does.
	Router func(docs []ranker.Doc, cfg *config.Config, dense *dense.Channel) *route.Router
	// Progress, when set, is told how many queries are done.
	Progress func(done int)
}

// Row is one query's outcome for one system, and its --per-query line.
type Row struct {
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
	Signals   ranker.Signals `json:"signals"`
	// Corrections are the prompt's words read as catalog words one edit
	// away (typos).
	Corrections []ranker.Correction `json:"corrections,omitempty"`

	score ranker.QueryScore
}

// Run routes every query of b through the router o builds and scores it.
func Run(b *Bench, o Options) []Row {
	return routeAll(o.Router(b.Docs, o.Config, o.Dense), b, o.Settings, o.Progress)
}

// routeAll routes every query of b through rt and scores it.
func routeAll(rt *route.Router, b *Bench, rs route.Settings, progress func(int)) []Row {
	rows := make([]Row, len(b.Queries))
	for i, q := range b.Queries {
		t0 := time.Now()
		rr := rt.Route(q.Query, rs)
		lat := time.Since(t0)
		ranked := make([]string, len(rr.Res.Ranked))
		for j, br := range rr.Res.Ranked {
			ranked[j] = br.ID
		}
		rows[i] = newRow(q, b.Docs, ranked, rr.Rendered.Included, rr.Rendered.Tokens, rr.Res.Reason, lat)
		rows[i].Signals = rr.Res.Signals
		rows[i].Corrections = rr.Res.Corrections
		if progress != nil {
			progress(i + 1)
		}
	}
	return rows
}

// newRow scores one query for one system.
func newRow(q Query, docs []ranker.Doc, ranked []string, emitted []int, tokens int, reason ranker.KReason, lat time.Duration) Row {
	o := ranker.Outcome{ID: q.ID, Gold: q.Gold, Ranked: ranked, Tokens: tokens}
	em := make([]string, len(emitted))
	for j, d := range emitted {
		em[j] = docs[d].ID
	}
	o.Emitted = em
	s := ranker.Score(o)
	return Row{
		ID: q.ID, Kind: q.kind(), Query: q.Query, Gold: q.Gold, Emitted: em,
		Ranked: ranked[:min(10, len(ranked))], K: len(em), Reason: reason, Tokens: tokens,
		LatencyMS: float64(lat.Nanoseconds()) / 1e6, Coverage: s.Coverage, RR: s.MRR, score: s,
	}
}

// Baselines scores the plain BM25 reference over text: its top 5
// ("plain-bm25"), and the same ranking cut by the default dynamic K
// ("plain-bm25+dynk"). Both inject a catalog with no budget.
func Baselines(b *Bench, text ranker.BaselineText) (fixed, dynamic System) {
	bl := ranker.NewBaseline(b.Docs, text)
	var fixedRows, dynRows []Row
	for _, q := range b.Queries {
		for _, dyn := range []bool{false, true} {
			t0 := time.Now()
			order, scores := bl.Rank(q.Query)
			emitted, d := bl.Emit(order, scores, dyn)
			r := ranker.RenderCatalog(b.Docs, emitted, 0)
			lat := time.Since(t0)
			ranked := make([]string, len(order))
			for j, i := range order {
				ranked[j] = b.Docs[i].ID
			}
			row := newRow(q, b.Docs, ranked, emitted, r.Tokens, d.Reason, lat)
			if dyn {
				dynRows = append(dynRows, row)
			} else {
				fixedRows = append(fixedRows, row)
			}
		}
	}
	fixed, dynamic = Summarize("plain-bm25", fixedRows), Summarize("plain-bm25+dynk", dynRows)
	fixed.Text, dynamic.Text = string(text), string(text)
	return fixed, dynamic
}
