package models_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
)

// TestBenchDense scores a static model alone (dense retrieval, documents =
// id with '-' as space + description) on ../shared/bench, the figures of
// BENCHMARKS.md and of the trained model's acceptance. Opt-in: MEGAGIT_BENCH=1.
// MEGAGIT_BENCH_MODEL picks a model folder (default: the shipped one); for a
// float32 folder the int8 round trip is scored too.
func TestBenchDense(t *testing.T) {
	if os.Getenv("MEGAGIT_BENCH") != "1" {
		t.Skip("set MEGAGIT_BENCH=1 to score the static model on ../shared/bench")
	}
	bench := envOr("MEGAGIT_BENCH_DIR", filepath.Join("..", "..", "shared", "bench"))
	dir := envOr("MEGAGIT_BENCH_MODEL", filepath.Join("staticmodel", "models", models.BuiltinID))
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.LoadStatic(os.DirFS(abs), ".")
	if err != nil {
		t.Fatal(err)
	}
	byDtype := map[string]*models.StaticModel{m.Meta().Dtype: m}
	if m.Meta().Dtype == "float32" {
		table, dim := m.Table()
		rows := len(table) / dim
		q, scales := models.QuantizeRows(table, rows, dim)
		if byDtype["int8"], err = models.NewStatic("int8", dim, models.DequantizeRows(q, scales, rows, dim)); err != nil {
			t.Fatal(err)
		}
	}
	targets := map[string]ranker.Summary{ // minimum R@5 and MRR (issue 4)
		"metatool":   {R5: 0.62, MRR: 0.57},
		"skills-dev": {R5: 0.767, MRR: 0.700},
	}
	for _, name := range []string{"metatool", "skills-dev"} {
		got := map[string]ranker.Summary{}
		for _, dtype := range []string{"float32", "int8"} {
			if byDtype[dtype] == nil {
				continue
			}
			s := denseSummary(t, byDtype[dtype], filepath.Join(bench, name))
			got[dtype] = s
			t.Logf("%s %s dim %d: R@1 %.3f R@5 %.3f R@10 %.3f MRR %.3f (%d queries)",
				name, dtype, m.Dim(), s.R1, s.R5, s.R10, s.MRR, s.InDist)
			if tg := targets[name]; s.R5 < tg.R5 || s.MRR < tg.MRR {
				t.Errorf("%s %s: R@5 %.3f MRR %.3f, want at least %.3f / %.3f", name, dtype, s.R5, s.MRR, tg.R5, tg.MRR)
			}
		}
		if f, q := got["float32"], got["int8"]; f.InDist > 0 && q.InDist > 0 && f.R5-q.R5 >= 0.005 {
			t.Errorf("%s: int8 loses %.4f recall@5 (limit 0.005)", name, f.R5-q.R5)
		}
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// denseSummary ranks every skill of dir/skills by cosine for each
// in-distribution query of dir/queries.jsonl (ties by id).
func denseSummary(t *testing.T, m *models.StaticModel, dir string) ranker.Summary {
	t.Helper()
	skills, _, err := registry.LoadDir(filepath.Join(dir, "skills"))
	if err != nil {
		t.Fatal(err)
	}
	ids, docs := make([]string, len(skills)), make([]string, len(skills))
	for i, s := range skills {
		ids[i] = s.Name
		docs[i] = strings.ReplaceAll(s.Name, "-", " ") + " " + s.File.Description()
	}
	dv, err := m.Embed(docs, models.Document)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var scores []ranker.QueryScore
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			ID    string   `json:"id"`
			Query string   `json:"query"`
			Gold  []string `json:"gold"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		if len(q.Gold) == 0 {
			continue
		}
		qv, err := m.Embed([]string{q.Query}, models.Query)
		if err != nil {
			t.Fatal(err)
		}
		cos := make([]float32, len(ids))
		for i, d := range dv {
			for k, x := range d {
				cos[i] += x * qv[0][k]
			}
		}
		order := make([]int, len(ids))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool {
			if cos[order[a]] != cos[order[b]] {
				return cos[order[a]] > cos[order[b]]
			}
			return ids[order[a]] < ids[order[b]]
		})
		ranked := make([]string, len(order))
		for i, k := range order {
			ranked[i] = ids[k]
		}
		scores = append(scores, ranker.Score(ranker.Outcome{ID: q.ID, Gold: q.Gold, Ranked: ranked}))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ranker.Summarize(scores)
}
