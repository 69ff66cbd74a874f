package ranker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/registry"
)

// benchRoot holds the shared development benchmarks.
const benchRoot = "../../shared/bench"

// benchQuery is one line of a benchmark's queries.jsonl.
type benchQuery struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind"`
}

// benchSet is a loaded benchmark: skills (with their raw body for the
// plain-BM25 reference) and queries.
type benchSet struct {
	name    string
	docs    []Doc
	queries []benchQuery
}

// loadBench reads DIR/skills through the registry loader, exactly as
// `megagit eval` and `megagit route` see them, and DIR/<queryFile>.
func loadBench(t testing.TB, dir, queryFile string) benchSet {
	t.Helper()
	skills, problems, err := registry.LoadDir(filepath.Join(dir, "skills"))
	if err != nil || len(skills) == 0 {
		t.Skipf("no benchmark at %s: %v", dir, err)
	}
	for _, p := range problems {
		t.Logf("skipped: %v", p)
	}
	set := benchSet{name: filepath.Base(dir)}
	for _, sk := range skills {
		set.docs = append(set.docs, Doc{
			ID: sk.Name, Path: sk.Path, Description: sk.File.Description(), Body: sk.File.Body(),
			Headings: sk.File.Headings(), Triggers: sk.File.Triggers(), Weight: 1, Status: StatusActive,
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

// runPipeline routes every query through an index and scores it, rendering
// the catalog injection for its token cost.
func runPipeline(set benchSet, cfg Config, opt Options) []QueryScore {
	ix := NewIndex(set.docs, cfg)
	out := make([]QueryScore, 0, len(set.queries))
	for _, q := range set.queries {
		r := ix.Rank(q.Query, opt)
		o := Outcome{ID: q.ID, Gold: q.Gold}
		for _, b := range r.Ranked {
			o.Ranked = append(o.Ranked, b.ID)
		}
		for _, i := range r.Emitted {
			o.Emitted = append(o.Emitted, set.docs[i].ID)
		}
		o.Tokens = RenderCatalog(set.docs, r.Emitted, 0).Tokens
		out = append(out, Score(o))
	}
	return out
}

// runPlain scores the README's plain BM25 (Baseline). It emits its top 5,
// or with dynamic set what seed 000's default dynamic K (no floor) picks
// from the raw BM25 scores.
func runPlain(set benchSet, text BaselineText, dynamic bool) []QueryScore {
	p := NewBaseline(set.docs, text)
	var out []QueryScore
	for _, q := range set.queries {
		order, sc := p.Rank(q.Query)
		emitted, _ := p.Emit(order, sc, dynamic)
		o := Outcome{ID: q.ID, Gold: q.Gold}
		for _, i := range order {
			o.Ranked = append(o.Ranked, set.docs[i].ID)
		}
		for _, i := range emitted {
			o.Emitted = append(o.Emitted, set.docs[i].ID)
		}
		o.Tokens = RenderCatalog(set.docs, emitted, 0).Tokens
		out = append(out, Score(o))
	}
	return out
}

// subset keeps the query scores whose id starts with prefix.
func subset(s []QueryScore, prefix string) []QueryScore {
	var out []QueryScore
	for _, q := range s {
		if strings.HasPrefix(q.ID, prefix) {
			out = append(out, q)
		}
	}
	return out
}

func fmtSummary(label string, s Summary) string {
	return fmt.Sprintf("%-34s n=%5d R@1 %.3f R@5 %.3f R@10 %.3f MRR %.3f cov %.3f K %.2f tok %.0f",
		label, s.N, s.R1, s.R5, s.R10, s.MRR, s.Coverage, s.MeanK, s.MeanTokens)
}

// report prints one system's figures on one benchmark.
func report(t *testing.T, bench, system string, s []QueryScore) {
	r := NewReport(s)
	t.Log(fmtSummary(bench+" "+system+" overall", r.Overall))
	t.Log(fmtSummary(bench+" "+system+" in-dist", r.InDist))
	t.Log(fmtSummary(bench+" "+system+" null", r.Null))
}

// TestBenchReport prints plain BM25 and the default pipeline side by side
// on both development benchmarks. MEGAGIT_BENCH=1 enables it;
// MEGAGIT_BENCH_FULL=1 adds metatool's queries-full.jsonl.
func TestBenchReport(t *testing.T) {
	if os.Getenv("MEGAGIT_BENCH") != "1" {
		t.Skip("set MEGAGIT_BENCH=1 to run the benchmark report")
	}
	type bench struct {
		dir, queries string
		text         BaselineText
	}
	benches := []bench{
		{"metatool", "queries.jsonl", BaselineNameDescriptionBody},
		{"skills-dev", "queries.jsonl", BaselineNameDescription},
	}
	if os.Getenv("MEGAGIT_BENCH_FULL") == "1" {
		benches = append(benches, bench{"metatool", "queries-full.jsonl", BaselineNameDescriptionBody})
	}
	for _, b := range benches {
		set := loadBench(t, filepath.Join(benchRoot, b.dir), b.queries)
		name := b.dir + "/" + strings.TrimSuffix(b.queries, ".jsonl")
		plain := runPlain(set, b.text, false)
		def := runPipeline(set, DefaultConfig(), Options{})
		report(t, name, "plain-bm25 top5", plain)
		report(t, name, "plain-bm25 dynK", runPlain(set, b.text, true))
		report(t, name, "default", def)
		if b.dir == "metatool" {
			for _, k := range []string{"s-", "m-"} {
				t.Log(fmtSummary(name+" plain-bm25 "+k, Summarize(subset(plain, k))))
				t.Log(fmtSummary(name+" default "+k, Summarize(subset(def, k))))
			}
		}
	}
}
