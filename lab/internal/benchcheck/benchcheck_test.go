// Package benchcheck checks megagit's plain-BM25 reference (ranker.Baseline,
// what `megagit eval --baseline` prints) against the reference figures the
// development benchmarks' READMEs publish. It needs the benchmarks: set
// BENCH to the folder holding metatool/ and skills-dev/.
package benchcheck

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
)

type benchQuery struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind"`
}

type benchSet struct {
	docs    []ranker.Doc
	queries []benchQuery
}

// loadBench reads DIR/skills through the registry loader, as `megagit eval`
// does, and DIR/<queryFile>.
func loadBench(t *testing.T, dir, queryFile string) benchSet {
	t.Helper()
	skills, _, err := registry.LoadDir(filepath.Join(dir, "skills"))
	if err != nil || len(skills) == 0 {
		t.Fatalf("no benchmark at %s: %v", dir, err)
	}
	var set benchSet
	for _, sk := range skills {
		set.docs = append(set.docs, ranker.Doc{
			ID: sk.Name, Path: sk.Path, Description: sk.File.Description(), Body: sk.File.Body(),
			Headings: sk.File.Headings(), Triggers: sk.File.Triggers(), Weight: 1, Status: ranker.StatusActive,
		})
	}
	f, err := os.Open(filepath.Join(dir, queryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var q benchQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		set.queries = append(set.queries, q)
	}
	return set
}

// runPlain scores plain BM25's top 5 on every query.
func runPlain(set benchSet, text ranker.BaselineText) []ranker.QueryScore {
	p := ranker.NewBaseline(set.docs, text)
	var out []ranker.QueryScore
	for _, q := range set.queries {
		order, sc := p.Rank(q.Query)
		emitted, _ := p.Emit(order, sc, false)
		o := ranker.Outcome{ID: q.ID, Gold: q.Gold}
		for _, i := range order {
			o.Ranked = append(o.Ranked, set.docs[i].ID)
		}
		for _, i := range emitted {
			o.Emitted = append(o.Emitted, set.docs[i].ID)
		}
		o.Tokens = ranker.RenderCatalog(set.docs, emitted, 0).Tokens
		out = append(out, ranker.Score(o))
	}
	return out
}

// subset keeps the query scores whose id starts with prefix.
func subset(s []ranker.QueryScore, prefix string) []ranker.QueryScore {
	var out []ranker.QueryScore
	for _, q := range s {
		if strings.HasPrefix(q.ID, prefix) {
			out = append(out, q)
		}
	}
	return out
}

// TestBaselineReproducesREADME checks the baseline against the reference
// tables of both benchmark READMEs (BENCH=/path/to/bench; BENCH_FULL=1 adds
// metatool's queries-full.jsonl row).
func TestBaselineReproducesREADME(t *testing.T) {
	root := os.Getenv("BENCH")
	if root == "" {
		t.Skip("set BENCH to the development benchmarks' folder")
	}
	type row struct{ r1, r5, r10, mrr float64 }
	check := func(label string, s ranker.Summary, want row) {
		t.Helper()
		got := row{s.R1, s.R5, s.R10, s.MRR}
		for i, pair := range [][2]float64{{got.r1, want.r1}, {got.r5, want.r5}, {got.r10, want.r10}, {got.mrr, want.mrr}} {
			if math.Abs(pair[0]-pair[1]) > 0.0005 {
				t.Errorf("%s metric %d = %.4f, README %.3f", label, i, pair[0], pair[1])
			}
		}
	}
	meta := loadBench(t, filepath.Join(root, "metatool"), "queries.jsonl")
	ms := runPlain(meta, ranker.BaselineNameDescriptionBody)
	check("metatool single", ranker.Summarize(subset(ms, "s-")), row{0.350, 0.494, 0.558, 0.425})
	check("metatool multi", ranker.Summarize(subset(ms, "m-")), row{0.020, 0.111, 0.168, 0.131})
	if r := ranker.NewReport(ms); r.Null.Coverage != 0 || r.Null.MeanK != ranker.BaselineTopK {
		t.Errorf("metatool null coverage %.3f K %.2f, want 0 and %d", r.Null.Coverage, r.Null.MeanK, ranker.BaselineTopK)
	}
	if os.Getenv("BENCH_FULL") == "1" {
		full := loadBench(t, filepath.Join(root, "metatool"), "queries-full.jsonl")
		fs := runPlain(full, ranker.BaselineNameDescriptionBody)
		check("metatool full single", ranker.Summarize(subset(fs, "s-")), row{0.282, 0.412, 0.481, 0.351})
	}
	dev := loadBench(t, filepath.Join(root, "skills-dev"), "queries.jsonl")
	ds := runPlain(dev, ranker.BaselineNameDescription)
	check("skills-dev in-dist", ranker.NewReport(ds).InDist, row{0.533, 0.767, 0.811, 0.700})
	kind := map[string]string{}
	for _, q := range dev.queries {
		kind[q.ID] = q.Kind
	}
	var k1, k2 []ranker.QueryScore
	for _, s := range ds {
		switch kind[s.ID] {
		case "k1":
			k1 = append(k1, s)
		case "k2":
			k2 = append(k2, s)
		}
	}
	check("skills-dev k1", ranker.Summarize(k1), row{0.586, 0.800, 0.850, 0.676})
	check("skills-dev k2", ranker.Summarize(k2), row{0.350, 0.650, 0.675, 0.784})
}
