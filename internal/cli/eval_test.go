package cli

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/registry"
)

func TestEvalFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    evalOptions
		wantErr string
	}{
		{name: "dir only", args: []string{"bench"},
			want: evalOptions{dir: "bench", baselineText: "name+description"}},
		{name: "everything", args: []string{"b", "--queries", "q.jsonl", "--json", "--per-query", "p.jsonl", "--baseline",
			"--baseline-text", "name+description+body", "--top-k", "3", "--no-dynamic-k", "--format", "compose", "--budget", "500"},
			want: evalOptions{dir: "b", queries: "q.jsonl", json: true, perQuery: "p.jsonl", baseline: true,
				baselineText: "name+description+body", topK: 3, noDynamicK: true, format: "compose", budget: 500}},
		{name: "sweep grid", args: []string{"b", "--sweep", "model.fusion_w=0,0.3", "--sweep", "dynamic_k.abs_floor=0.1"},
			want: evalOptions{dir: "b", baselineText: "name+description",
				sweep: []string{"model.fusion_w=0,0.3", "dynamic_k.abs_floor=0.1"},
				grid:  []sweepAxis{{sweepFusionW, []float64{0, 0.3}}, {sweepDynFloor, []float64{0.1}}}}},
		{name: "sweep unknown key", args: []string{"b", "--sweep", "lexical.k1=1"}, wantErr: "--sweep lexical.k1: unknown key"},
		{name: "sweep with baseline", args: []string{"b", "--sweep", "model.fusion_w=0.3", "--baseline"}, wantErr: "cannot be combined"},
		{name: "sweep with per-query", args: []string{"b", "--sweep", "model.fusion_w=0.3", "--per-query", "p"}, wantErr: "cannot be combined"},
		{name: "no dir", args: nil, wantErr: "expects a benchmark DIR"},
		{name: "two dirs", args: []string{"a", "b"}, wantErr: "expects a benchmark DIR"},
		{name: "bad format", args: []string{"b", "--format", "yaml"}, wantErr: "want catalog or compose"},
		{name: "bad baseline text", args: []string{"b", "--baseline-text", "body"}, wantErr: "--baseline-text"},
		{name: "negative budget", args: []string{"b", "--budget", "-1"}, wantErr: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOnly(t, newEvalCmd, tt.args...)
			if tt.wantErr != "" {
				wantUsageError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.app, got.flags = nil, nil
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestLoadEvalQueries(t *testing.T) {
	tests := []struct {
		name, text string
		n          int
		wantErr    string
	}{
		{name: "kinds and blank lines", text: "{\"id\":\"a\",\"query\":\"x\",\"gold\":[\"s\"]}\n\n{\"id\":\"b\",\"query\":\"y\",\"gold\":[],\"kind\":\"small_talk\"}\r\n", n: 2},
		{name: "null gold", text: `{"id":"a","query":"x","gold":null}`, wantErr: `missing "gold"`},
		{name: "missing gold", text: `{"id":"a","query":"x"}`, wantErr: `q.jsonl:1: missing "gold"`},
		{name: "bad json", text: "{\"id\":\"a\",\"query\":\"x\",\"gold\":[]}\n{oops}\n", wantErr: "q.jsonl:2: "},
		{name: "missing id", text: `{"query":"x"}`, wantErr: `q.jsonl:1: missing "id"`},
		{name: "missing query", text: `{"id":"a"}`, wantErr: `q.jsonl:1: missing "query"`},
		{name: "empty", text: "\n", wantErr: "no queries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "q.jsonl")
			if err := os.WriteFile(f, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := loadEvalQueries(f)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, registry.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(qs) != tt.n {
				t.Fatalf("got %d queries, %v; want %d", len(qs), err, tt.n)
			}
			for _, q := range qs {
				if q.Gold == nil {
					t.Errorf("%s: nil gold, want [] so JSON prints []", q.ID)
				}
			}
		})
	}
}

func TestEvalQueryKind(t *testing.T) {
	tests := []struct {
		q    evalQuery
		want string
	}{
		{evalQuery{Gold: []string{}}, "null"},
		{evalQuery{Gold: []string{"a"}}, "single"},
		{evalQuery{Gold: []string{"a", "b"}}, "multi"},
		{evalQuery{Gold: []string{"a"}, Kind: "k1"}, "k1"},
	}
	for _, tt := range tests {
		if got := tt.q.kind(); got != tt.want {
			t.Errorf("kind(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {10, 1}, {0, 1}, {100, 10}} {
		if got := evalPercentile(xs, tt.p); got != tt.want {
			t.Errorf("p%v = %v, want %v", tt.p, got, tt.want)
		}
	}
	if evalPercentile(nil, 50) != 0 {
		t.Error("percentile of nothing is not 0")
	}
}
