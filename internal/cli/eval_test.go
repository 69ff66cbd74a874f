package cli

import (
	"testing"

	"github.com/megagit/megagit/eval"
)

func TestEvalFlags(t *testing.T) {
	testFlags(t, newEvalCmd, func(o *evalOptions) { o.app, o.flags = nil, nil }, []flagCase[evalOptions]{
		{name: "dir only", args: []string{"bench"},
			want: evalOptions{dir: "bench", dirs: []string{"bench"}, baselineText: "name+description", nullShare: 0.4}},
		{name: "everything", args: []string{"b", "--queries", "q.jsonl", "--json", "--per-query", "p.jsonl", "--baseline",
			"--baseline-text", "name+description+body", "--top-k", "3", "--no-dynamic-k", "--format", "compose", "--budget", "500"},
			want: evalOptions{dir: "b", dirs: []string{"b"}, nullShare: 0.4, queries: "q.jsonl", json: true, perQuery: "p.jsonl", baseline: true,
				baselineText: "name+description+body", topK: 3, noDynamicK: true, format: "compose", budget: 500}},
		{name: "sweep grid", args: []string{"b", "--sweep", "model.fusion_w=0,0.3", "--sweep", "dynamic_k.abs_floor=0.1"},
			want: evalOptions{dir: "b", dirs: []string{"b"}, nullShare: 0.4, baselineText: "name+description",
				sweep: []string{"model.fusion_w=0,0.3", "dynamic_k.abs_floor=0.1"},
				grid: []eval.Axis{{Key: eval.KeyFusionW, Values: []float64{0, 0.3}},
					{Key: eval.KeyDynFloor, Values: []float64{0.1}}}}},
		{name: "sweep unknown key", args: []string{"b", "--sweep", "lexical.k1=1"}, wantErr: "--sweep lexical.k1: unknown key"},
		{name: "sweep with baseline", args: []string{"b", "--sweep", "model.fusion_w=0.3", "--baseline"}, wantErr: "cannot be combined"},
		{name: "sweep with per-query", args: []string{"b", "--sweep", "model.fusion_w=0.3", "--per-query", "p"}, wantErr: "cannot be combined"},
		{name: "no dir", args: nil, wantErr: "expects a benchmark DIR"},
		{name: "two dirs", args: []string{"a", "b"}, wantErr: "expects a benchmark DIR"},
		{name: "fit several dirs", args: []string{"--fit", "g.json", "--null-share", "0.3", "--queries", "dev.jsonl", "a", "b"},
			want: evalOptions{dir: "a", dirs: []string{"a", "b"}, fit: "g.json", nullShare: 0.3, queries: "dev.jsonl", baselineText: "name+description"}},
		{name: "fit below", args: []string{"--fit", "g.json", "--below", "small.json", "a", "b"},
			want: evalOptions{dir: "a", dirs: []string{"a", "b"}, fit: "g.json", below: "small.json", nullShare: 0.4, baselineText: "name+description"}},
		{name: "below without fit", args: []string{"a", "--below", "small.json"}, wantErr: "--below needs --fit"},
		{name: "fit no dir", args: []string{"--fit", "g.json"}, wantErr: "expects a benchmark DIR"},
		{name: "fit with sweep", args: []string{"--fit", "g.json", "a", "--sweep", "model.fusion_w=0.3"}, wantErr: "cannot be combined"},
		{name: "bad null share", args: []string{"--fit", "g.json", "a", "--null-share", "1"}, wantErr: "--null-share"},
		{name: "bad format", args: []string{"b", "--format", "yaml"}, wantErr: "want catalog or compose"},
		{name: "bad baseline text", args: []string{"b", "--baseline-text", "body"}, wantErr: "--baseline-text"},
		{name: "negative budget", args: []string{"b", "--budget", "-1"}, wantErr: "must not be negative"},
	})
}

func TestSweepQuoteJoin(t *testing.T) {
	if got := sweepQuoteJoin([]string{"a: {b: 1}", "c: {d: 2}"}); got != `"a: {b: 1}" and "c: {d: 2}"` {
		t.Errorf("quoteJoin = %s", got)
	}
}
