package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/megagit/megagit/skillfile"
)

// promptDir is lab/data/devsets.
var promptDir = filepath.Join("..", "..", "data", "devsets")

// TestPromptFiles checks data/devsets without any benchmark: format, unique
// ids and queries, kinds, splits from the ids, and enough of each kind.
func TestPromptFiles(t *testing.T) {
	files, err := loadPrompts(promptDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkFormat(files) {
		t.Error(p)
	}
	counts := map[string]int{}
	for _, ps := range files {
		for _, p := range ps {
			counts[p.Kind]++
			counts[p.Kind+"/"+p.Split]++
		}
	}
	if n := len(files["null.jsonl"]); n < 150 {
		t.Errorf("null.jsonl has %d prompts, want at least 150", n)
	}
	if n := len(files["paraphrase.jsonl"]); n < 60 {
		t.Errorf("paraphrase.jsonl has %d prompts, want at least 60", n)
	}
	for _, k := range []string{"small_talk", "uncovered", "trap"} {
		if counts[k] < 45 {
			t.Errorf("%d %s prompts, want about a third of null.jsonl", counts[k], k)
		}
	}
	for _, k := range []string{"small_talk", "uncovered", "trap", "paraphrase"} {
		dev, test := counts[k+"/dev"], counts[k+"/test"]
		if dev == 0 || test == 0 || dev > 2*test || test > 2*dev {
			t.Errorf("%s: %d dev, %d test, want roughly half each", k, dev, test)
		}
	}
}

// TestPromptsAgainstBench needs the benchmark the prompts were written
// for: MEGAGIT_SKILLS_DEV=DIR (DIR/skills/<id>/SKILL.md, DIR/queries.jsonl).
func TestPromptsAgainstBench(t *testing.T) {
	dir := os.Getenv("MEGAGIT_SKILLS_DEV")
	if dir == "" {
		t.Skip("MEGAGIT_SKILLS_DEV is not set")
	}
	files, err := loadPrompts(promptDir)
	if err != nil {
		t.Fatal(err)
	}
	skills, err := loadBenchSkills(dir)
	if err != nil {
		t.Fatal(err)
	}
	qids, err := loadBenchQueryIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkAgainst(files, skills, qids) {
		t.Error(p)
	}
}

func TestSharedTokens(t *testing.T) {
	s := benchSkill{id: "image-optimiser", desc: "Compress images for the web."}
	if got := sharedTokens("make my pictures smaller so the page loads faster", s); len(got) != 0 {
		t.Errorf("shared = %v, want none", got)
	}
	if got := sharedTokens("compressing the optimiser's image", s); len(got) != 3 {
		t.Errorf("shared = %v, want stems of compressing, optimiser and image", got)
	}
}

func TestMentions(t *testing.T) {
	m := newMentions([]string{"scikit-learn", "dask"})
	for text, want := range map[string]bool{
		"Helpers for scikit-learn pipelines": true,
		"a scikit learn wrapper":             true,
		"Dask on Kubernetes.":                true,
		"daskboard: a dashboard":             false,
		"learn scikit":                       false,
	} {
		if got := m.any(text); got != want {
			t.Errorf("any(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"use intl":          "use-intl",
		"Hive  Context--X!": "hive-context-x",
		"ab":                "",
		"日本語":               "",
	} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUsageNamesNoLocalPaths(t *testing.T) {
	// Users pass their own paths: no machine's folders in the help.
	for _, bad := range []string{"/" + "work", ".." + "/", "shared" + "/"} {
		if strings.Contains(usage, bad) {
			t.Errorf("usage mentions %q", bad)
		}
	}
}

// writeJSONL writes one JSON line per value.
func writeJSONL(t *testing.T, p string, vs ...any) {
	t.Helper()
	var b bytes.Buffer
	for _, v := range vs {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(data, '\n'))
	}
	if err := writeFile(p, b.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// fixture is a tiny benchmark, tool folder, pairs file and prompt folder.
func fixture(t *testing.T) (bench, tools, pairs, prompts string) {
	t.Helper()
	root := t.TempDir()
	bench, tools, prompts = filepath.Join(root, "bench"), filepath.Join(root, "tools"), filepath.Join(root, "prompts")
	pairs = filepath.Join(root, "pairs.jsonl.gz")
	for id, desc := range map[string]string{
		"image-optimiser": "Compress images for the web.",
		"git-bisect":      "Find the commit that broke a build.",
	} {
		if err := writeFile(filepath.Join(bench, "skills", id, "SKILL.md"), skillfile.RenderNew(id, desc, "")); err != nil {
			t.Fatal(err)
		}
	}
	writeJSONL(t, filepath.Join(bench, "queries.jsonl"),
		benchQuery{ID: "q-1", Query: "shrink my png", Gold: []string{"image-optimiser"}, Kind: "k1"},
		benchQuery{ID: "q-2", Query: "hello", Gold: []string{}, Kind: "small_talk"})
	for id, desc := range map[string]string{
		"weather-tool":    "Tells the weather.",
		"git-bisect":      "A tool with a benchmark skill's id.",
		"bisect-helper":   "Runs git bisect for you.",
		"zz-calendar-app": "Books meetings.",
	} {
		if err := writeFile(filepath.Join(tools, id, "SKILL.md"), skillfile.RenderNew(id, desc, "# "+id+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for _, p := range []pair{
		{A: "left pad", B: "Pads a string on the left with any character you like.", Source: "npm"},
		{A: "tiny", B: "too short"},
		{A: "weather tool", B: "A second package that would take the same id as a tool."},
		{A: "git bisect", B: "Wraps the git bisect command for scripting in Python code."},
		{A: "csv kit", B: "Command line tools for converting and querying CSV files."},
		{A: "never read", B: "A package after the last one the catalog needs."},
	} {
		data, _ := json.Marshal(p)
		zw.Write(append(data, '\n'))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(pairs, gz.Bytes()); err != nil {
		t.Fatal(err)
	}
	np := func(id, q, kind string) prompt {
		return prompt{ID: id, Query: q, Gold: []string{}, Kind: kind, Split: splitOf(id)}
	}
	writeJSONL(t, filepath.Join(prompts, "null.jsonl"),
		np("n-1", "good morning", "small_talk"), np("n-2", "rename x to y", "uncovered"), np("n-3", "compress my jacket", "trap"))
	writeJSONL(t, filepath.Join(prompts, "paraphrase.jsonl"),
		prompt{ID: "p-1", Query: "make my pictures smaller", Gold: []string{"image-optimiser"}, Kind: "paraphrase", Split: splitOf("p-1")})
	return bench, tools, pairs, prompts
}

func TestGen(t *testing.T) {
	bench, tools, pairs, prompts := fixture(t)
	out1, out2 := t.TempDir(), t.TempDir()
	for _, out := range []string{out1, out2} {
		var stdout, stderr bytes.Buffer
		args := []string{"gen", "-bench", bench, "-tools", tools, "-pairs", pairs, "-prompts", prompts, "-out", out, "-sizes", "5,2,4"}
		if err := run(args, &stdout, &stderr); err != nil {
			t.Fatalf("gen: %v\n%s", err, stderr.String())
		}
	}
	ids := func(dir string) []string {
		entries, err := os.ReadDir(filepath.Join(dir, "skills"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	// Tools first, by id, without the clash or the one naming a benchmark
	// skill; then packages in file order, skipping the short summary, the
	// id a tool took and the package naming a benchmark skill.
	want := map[int]string{
		2: "git-bisect image-optimiser",
		4: "git-bisect image-optimiser weather-tool zz-calendar-app",
		5: "git-bisect image-optimiser left-pad weather-tool zz-calendar-app",
	}
	for n, w := range want {
		dir := filepath.Join(out1, "skills-"+strconv.Itoa(n))
		if got := strings.Join(ids(dir), " "); got != w {
			t.Errorf("skills-%d = %s, want %s", n, got, w)
		}
	}
	// The next usable package at 6, never the pair after it.
	if err := run([]string{"gen", "-bench", bench, "-tools", tools, "-pairs", pairs, "-prompts", prompts, "-out", out1, "-sizes", "6"}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(filepath.Join(out1, "skills-6")), " "); got != "csv-kit git-bisect image-optimiser left-pad weather-tool zz-calendar-app" {
		t.Errorf("skills-6 = %s", got)
	}
	data, err := os.ReadFile(filepath.Join(out1, "skills-6", "skills", "csv-kit", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := skillfile.Parse("SKILL.md", data)
	if err != nil || f.Name() != "csv-kit" || !strings.HasPrefix(f.Description(), "Command line tools for converting") {
		t.Errorf("csv-kit SKILL.md: %v\n%s", err, data)
	}
	if problems := skillfile.Lint("csv-kit", "SKILL.md", data); len(problems) > 0 {
		t.Errorf("csv-kit SKILL.md lints: %v", problems)
	}
	// Deterministic: both runs wrote the same bytes.
	for _, name := range []string{"queries.jsonl", "all.jsonl", "all-dev.jsonl", "null-test.jsonl", "paraphrase.jsonl", "skills/left-pad/SKILL.md"} {
		a, err1 := os.ReadFile(filepath.Join(out1, "skills-5", name))
		b, err2 := os.ReadFile(filepath.Join(out2, "skills-5", name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs (%v, %v)", name, err1, err2)
		}
	}
	all, err := readJSONL[benchQuery](filepath.Join(out1, "skills-4", "all.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 || all[0].Kind != "k1" || all[1].Kind != "small_talk" || all[2].Kind != "new_small_talk" || all[5].Kind != "new_paraphrase" {
		t.Errorf("all.jsonl = %+v", all)
	}
	for _, split := range []string{"dev", "test"} {
		qs, err := readJSONL[benchQuery](filepath.Join(out1, "skills-4", "null-"+split+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if splitOf(q.ID) != split || q.Gold == nil {
				t.Errorf("null-%s.jsonl holds %+v", split, q)
			}
		}
	}
	// The two folds split the benchmark's own queries too, and together
	// hold every query once.
	seen := map[string]string{}
	for _, split := range []string{"dev", "test"} {
		qs, err := readJSONL[benchQuery](filepath.Join(out1, "skills-4", "fold-"+split+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if splitOf(q.ID) != split || seen[q.ID] != "" {
				t.Errorf("fold-%s.jsonl holds %+v (also in %q)", split, q, seen[q.ID])
			}
			seen[q.ID] = split
		}
	}
	for _, q := range all {
		if seen[q.ID] == "" {
			t.Errorf("%s is in no fold", q.ID)
		}
	}
}

func TestGenRefusesBadPrompts(t *testing.T) {
	bench, tools, pairs, prompts := fixture(t)
	writeJSONL(t, filepath.Join(prompts, "paraphrase.jsonl"),
		prompt{ID: "p-1", Query: "compress my pictures", Gold: []string{"image-optimiser"}, Kind: "paraphrase", Split: splitOf("p-1")})
	err := run([]string{"gen", "-bench", bench, "-tools", tools, "-pairs", pairs, "-prompts", prompts, "-out", t.TempDir(), "-sizes", "2"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "shares [compress]") {
		t.Errorf("err = %v, want the shared token named", err)
	}
	if err := run([]string{"gen", "-bench", bench, "-tools", tools, "-pairs", pairs, "-prompts", prompts, "-out", t.TempDir(), "-sizes", "0"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("an empty catalog: no error")
	}
}

// Below the benchmark's size, gen cuts the benchmark's own skills and
// leaves out the queries and prompts whose gold skill was cut.
func TestGenSubset(t *testing.T) {
	bench, tools, pairs, prompts := fixture(t)
	out := t.TempDir()
	if err := run([]string{"gen", "-bench", bench, "-tools", tools, "-pairs", pairs, "-prompts", prompts, "-out", out, "-sizes", "1,2"}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(out, "skills-1", "skills"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("skills-1 holds %v (%v), want one skill", entries, err)
	}
	kept := entries[0].Name()
	if kept != "image-optimiser" && kept != "git-bisect" {
		t.Fatalf("skills-1 holds %s, not a benchmark skill", kept)
	}
	ids := func(file string) string {
		qs, err := readJSONL[benchQuery](filepath.Join(out, "skills-1", file))
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, q := range qs {
			s = append(s, q.ID)
		}
		return strings.Join(s, " ")
	}
	// Only image-optimiser is gold (q-1, p-1); the nulls always stay.
	want := map[string][2]string{
		"queries.jsonl": {"q-1 q-2", "q-2"},
		"all.jsonl":     {"q-1 q-2 n-1 n-2 n-3 p-1", "q-2 n-1 n-2 n-3"},
	}
	for file, w := range want {
		exp := w[1]
		if kept == "image-optimiser" {
			exp = w[0]
		}
		if got := ids(file); got != exp {
			t.Errorf("skills-1/%s = %q, want %q (catalog: %s)", file, got, exp, kept)
		}
	}
	// At the benchmark's own size, the queries file is the benchmark's.
	a, _ := os.ReadFile(filepath.Join(bench, "queries.jsonl"))
	b, _ := os.ReadFile(filepath.Join(out, "skills-2", "queries.jsonl"))
	if !bytes.Equal(a, b) {
		t.Errorf("skills-2/queries.jsonl differs from the benchmark's:\n%s\n%s", a, b)
	}
}
