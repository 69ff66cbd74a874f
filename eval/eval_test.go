package eval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
)

// writeBench writes a benchmark folder: three skills, one malformed skill
// and queries with a gold id no skill has.
func writeBench(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"skills/git-bisect/SKILL.md":     "---\nname: git-bisect\ndescription: Find the commit that introduced a regression with git bisect.\n---\n# git-bisect\n",
		"skills/docker-slim/SKILL.md":    "---\nname: docker-slim\ndescription: Shrink Docker images with multi-stage builds.\n---\n# docker-slim\n",
		"skills/webhook-signer/SKILL.md": "---\nname: webhook-signer\ndescription: Verify Stripe webhook signatures.\n---\n# webhook-signer\n",
		"skills/broken/SKILL.md":         "no frontmatter\n",
		"queries.jsonl": `{"id":"q-bisect","query":"which commit introduced this regression? use git bisect","gold":["git-bisect"]}
{"id":"q-docker","query":"shrink my docker images","gold":["docker-slim","ghost"]}
{"id":"q-puppy","query":"a good name for a golden retriever puppy","gold":[]}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// toDocs is the command's skill-to-document mapping, reduced to what these
// tests route on.
func toDocs(skills []*registry.Skill) []ranker.Doc {
	docs := make([]ranker.Doc, len(skills))
	for i, s := range skills {
		docs[i] = ranker.Doc{ID: s.Name, Path: s.Path, Description: s.File.Description(), Weight: 1, Status: ranker.StatusActive}
	}
	return docs
}

// lexicalRouter routes lexically with the config's fused floor.
func lexicalRouter(docs []ranker.Doc, cfg *config.Config, _ *dense.Channel) *route.Router {
	rc := ranker.DefaultConfig()
	if cfg.DynamicK.AbsFloor > 0 {
		rc.DynamicK.AbsFloor = cfg.DynamicK.AbsFloor
	}
	r, _ := route.New(docs, rc, nil, route.DynamicKOverride{}, nil)
	return r
}

func TestLoad(t *testing.T) {
	dir := writeBench(t)
	var warnings []string
	b, err := Load(dir, filepath.Join(dir, "queries.jsonl"), toDocs, func(m string) { warnings = append(warnings, m) })
	if err != nil {
		t.Fatal(err)
	}
	var ids, paths []string
	for _, d := range b.Docs {
		ids, paths = append(ids, d.ID), append(paths, d.Path)
	}
	if want := []string{"docker-slim", "git-bisect", "webhook-signer"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("docs %v, want %v", ids, want)
	}
	if paths[0] != "skills/docker-slim/SKILL.md" {
		t.Errorf("path %q, want it as a registry with root skills injects it", paths[0])
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "broken") ||
		!strings.HasSuffix(warnings[1], `queries.jsonl: 1 gold ids name no loaded skill (e.g. "ghost"); they count as misses`) {
		t.Errorf("warnings %q, want the broken skill and the ghost gold id", warnings)
	}
	if _, err := Load(t.TempDir(), "q.jsonl", toDocs, func(string) {}); err == nil || !strings.Contains(err.Error(), "no skills in") {
		t.Errorf("empty folder: err = %v", err)
	}
}

func TestRunAndSummarize(t *testing.T) {
	dir := writeBench(t)
	b, err := Load(dir, filepath.Join(dir, "queries.jsonl"), toDocs, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	rows := Run(b, Options{Config: &config.Config{}, Router: lexicalRouter, Progress: func(n int) { done = n }})
	if done != 3 || len(rows) != 3 {
		t.Fatalf("%d rows, progress %d; want 3 and 3", len(rows), done)
	}
	if r := rows[0]; r.Kind != "single" || r.Ranked[0] != "git-bisect" || r.Coverage != 1 || r.RR != 1 {
		t.Errorf("q-bisect: %+v, want git-bisect first and covered", r)
	}
	if r := rows[1]; r.Kind != "multi" || r.Coverage != 0.5 {
		t.Errorf("q-docker: coverage %v, want 0.5 (the ghost gold id is a miss)", r.Coverage)
	}
	if r := rows[2]; r.Kind != "null" || r.K != 0 || r.Coverage != 1 {
		t.Errorf("q-puppy: %+v, want nothing emitted", r)
	}
	s := Summarize("megagit", rows)
	if s.Counts["total"] != 3 || s.Counts["in_dist"] != 2 || s.Counts["null"] != 1 || s.NullCoverage != 1 || s.InDistCoverage != 0.75 {
		t.Errorf("summary %+v", s)
	}
	if want := []string{"multi", "single", "null"}; !reflect.DeepEqual(s.kindOrder, want) {
		t.Errorf("kind order %v, want in-distribution kinds first, by name", s.kindOrder)
	}
	out := Report{Head: b.Head(route.Settings{TopK: 3}), System: s}
	header, table := out.Table()
	if !reflect.DeepEqual(header, []string{"metric", "megagit"}) || table[0][0] != "queries" || table[0][1] != "3" {
		t.Errorf("table %q %q", header, table[:1])
	}
	fixed, dyn := Baselines(b, ranker.BaselineNameDescription)
	if fixed.System != "plain-bm25" || dyn.System != "plain-bm25+dynk" || fixed.Text != "name+description" || fixed.NullCoverage != 0 {
		t.Errorf("baselines %+v / %+v", fixed, dyn)
	}
}

func TestSweepLexical(t *testing.T) {
	dir := writeBench(t)
	b, err := Load(dir, filepath.Join(dir, "queries.jsonl"), toDocs, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{}
	grid, err := ParseSweep([]string{"dynamic_k.abs_floor=1,0.05"})
	if err != nil {
		t.Fatal(err)
	}
	out := Sweep(b, Options{Config: cfg, Router: lexicalRouter}, grid)
	if len(out.Rows) != 2 || out.Model != "none" || len(out.Base) != 0 {
		t.Fatalf("sweep %+v", out)
	}
	// A floor of 1 abstains on every query: only the null one is covered.
	if r := out.Rows[0]; r.MeanK != 0 || r.Coverage != 0.3333 || r.Best {
		t.Errorf("floor 1: %+v", r.System)
	}
	if out.Best != 1 || !out.Rows[1].Best || out.BestSetting() != "dynamic_k.abs_floor=0.05" {
		t.Errorf("best %d (%s), want the 0.05 floor", out.Best, out.BestSetting())
	}
	if want := []string{"dynamic_k: {abs_floor: 0.05}"}; !reflect.DeepEqual(out.Keep, want) {
		t.Errorf("keep %q, want %q", out.Keep, want)
	}
	if cfg.DynamicK.AbsFloor != 0 {
		t.Errorf("the sweep changed the config: floor %v", cfg.DynamicK.AbsFloor)
	}
	header, table := out.Table()
	if header[0] != "dynamic_k.abs_floor" || table[1][0] != "0.05" || table[1][len(header)-1] != "*" {
		t.Errorf("table %q %q", header, table)
	}
}
