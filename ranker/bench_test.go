package ranker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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

var (
	benchHeadingRE = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	benchTriggerRE = regexp.MustCompile(`(?i)^\s*(?:[-*]\s+)?(?:\*\*)?(?:use (?:this |the )?(?:skill )?(?:when|for|if)|when to use|triggers?\s*:|trigger when)`)
)

// loadBench reads DIR/skills/*/SKILL.md and DIR/<queryFile> the way the
// registry will: frontmatter name/description, body headings and trigger
// lines outside code fences.
func loadBench(t testing.TB, dir, queryFile string) benchSet {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "skills", "*", "SKILL.md"))
	if err != nil || len(paths) == 0 {
		t.Skipf("no benchmark at %s: %v", dir, err)
	}
	sort.Strings(paths)
	set := benchSet{name: filepath.Base(dir)}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		set.docs = append(set.docs, parseSkill(t, p, string(b)))
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

// parseSkill splits one SKILL.md into a Doc.
func parseSkill(t testing.TB, path, text string) Doc {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		t.Fatalf("%s: no frontmatter", path)
	}
	fm, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("%s: unterminated frontmatter", path)
	}
	var meta struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal([]byte(fm), &meta); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	d := Doc{ID: meta.Name, Description: meta.Description, Body: body, Path: path, Weight: 1, Status: StatusActive}
	fence := false
	for _, ln := range strings.Split(body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(ln), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if m := benchHeadingRE.FindStringSubmatch(ln); m != nil {
			d.Headings = append(d.Headings, m[1])
		} else if benchTriggerRE.MatchString(ln) {
			d.Triggers = append(d.Triggers, strings.TrimSpace(ln))
		}
	}
	return d
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
