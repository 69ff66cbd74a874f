package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/megagit/megagit/lab/internal/skillslug"
	"github.com/megagit/megagit/skillfile"
)

// skillText is one skill to write: its id and its SKILL.md.
type skillText struct {
	id   string
	data []byte
}

// pair is one line of the pairs file.
type pair struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Source string `json:"source"`
}

// mentions says whether text names any of the benchmark's skills as a
// word or phrase ("scikit-learn" also as "scikit learn"): a distractor
// about a benchmark skill's own library would be a second right answer.
type mentions []string

func newMentions(ids []string) mentions {
	m := make(mentions, 0, len(ids))
	for _, id := range ids {
		m = append(m, " "+strings.ReplaceAll(id, "-", " ")+" ")
	}
	return m
}

func (m mentions) any(text string) bool {
	var b strings.Builder
	b.WriteByte(' ')
	for _, r := range strings.ToLower(text) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte(' ')
	s := " " + strings.Join(strings.Fields(b.String()), " ") + " "
	for _, w := range m {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// toolSkills reads DIR/<id>/SKILL.md in id order, skipping ids taken,
// files that do not parse and tools that mention a benchmark skill.
func toolSkills(dir string, taken map[string]bool, m mentions) ([]skillText, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []skillText
	for _, e := range entries { // ReadDir sorts by name
		id := e.Name()
		if !e.IsDir() || taken[id] || skillfile.ValidateName(id) != nil {
			continue
		}
		p := filepath.Join(dir, id, "SKILL.md")
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f, err := skillfile.Parse(p, data)
		if err != nil || f.Name() != id || f.Description() == "" || m.any(f.Description()) {
			continue
		}
		taken[id] = true
		out = append(out, skillText{id: id, data: data})
	}
	return out, nil
}

// slugify turns a package name into a skill id: lowercase ASCII letters
// and digits, every other run of characters one hyphen. "" if the result
// is not a valid id.
func slugify(s string) string {
	id := skillslug.Slug(s)
	if len(id) < 3 || skillfile.ValidateName(id) != nil {
		return ""
	}
	return id
}

// usableSummary keeps summaries that read as a skill's description: 40 to
// 300 characters, at least six words, plain ASCII, no placeholders or
// type-definition stubs.
func usableSummary(b string) bool {
	if len(b) < 40 || len(b) > 300 || !utf8.ValidString(b) || len(strings.Fields(b)) < 6 {
		return false
	}
	for _, r := range b {
		if r > 126 || r < 32 {
			return false
		}
	}
	low := strings.ToLower(b)
	for _, bad := range []string{"placeholder", "typescript definitions", "type definitions", "test package", "do not use", "deprecated", "my first", "todo"} {
		if strings.Contains(low, bad) {
			return false
		}
	}
	return true
}

// packageSkill is a pair as a SKILL.md: the summary as the description,
// with a "Use when" clause as real skills have, and a short body.
func packageSkill(id string, p pair) []byte {
	name := strings.Join(strings.Fields(p.A), " ")
	sum := strings.TrimSpace(p.B)
	if !strings.HasSuffix(sum, ".") {
		sum += "."
	}
	eco := "Python"
	if p.Source == "npm" {
		eco = "JavaScript"
	}
	desc := fmt.Sprintf("%s Use when a task needs the %s %s package.", sum, name, eco)
	body := fmt.Sprintf("# %s\n\n%s\n\n## When to use\n\nUse this skill when the project depends on %s or the user asks for what it does.\n",
		name, sum, name)
	return skillfile.RenderNew(id, desc, body)
}

// packageSkills reads the gzipped pairs file in order until it has n
// usable packages, skipping ids taken and summaries naming a benchmark
// skill.
func packageSkills(file string, n int, taken map[string]bool, m mentions) ([]skillText, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []skillText
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for len(out) < n && sc.Scan() {
		var p pair
		if json.Unmarshal(sc.Bytes(), &p) != nil {
			continue
		}
		id := slugify(p.A)
		if id == "" || taken[id] || !usableSummary(p.B) || m.any(p.A+" "+p.B) {
			continue
		}
		taken[id] = true
		out = append(out, skillText{id: id, data: packageSkill(id, p)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) < n {
		return nil, fmt.Errorf("%s: only %d usable packages, need %d", file, len(out), n)
	}
	return out, nil
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("size %q: want a positive number", f)
		}
		out = append(out, n)
	}
	sort.Ints(out)
	return out, nil
}

func genCmd(args []string, out, errOut io.Writer) error {
	fs := newFlags("gen", errOut)
	bench := fs.String("bench", "", "")
	tools := fs.String("tools", "", "")
	pairs := fs.String("pairs", "", "")
	outDir := fs.String("out", "", "")
	promptDir := fs.String("prompts", filepath.Join("data", "devsets"), "")
	sizeList := fs.String("sizes", "10,20,35,50,100,156,500,2000,10000", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bench == "" || *tools == "" || *pairs == "" || *outDir == "" {
		return errors.New("gen needs -bench, -tools, -pairs and -out")
	}
	base, err := loadBenchSkills(*bench)
	if err != nil {
		return err
	}
	sizes, err := parseSizes(*sizeList)
	if err != nil {
		return err
	}
	files, err := loadPrompts(*promptDir)
	if err != nil {
		return err
	}
	qids, err := loadBenchQueryIDs(*bench)
	if err != nil {
		return err
	}
	if probs := append(checkFormat(files), checkAgainst(files, base, qids)...); len(probs) > 0 {
		return fmt.Errorf("%s: %s (run devsets check)", *promptDir, probs[0])
	}
	taken := map[string]bool{}
	ids := make([]string, 0, len(base))
	for _, s := range base {
		taken[s.id] = true
		ids = append(ids, s.id)
	}
	m := newMentions(ids)
	distractors, err := toolSkills(*tools, taken, m)
	if err != nil {
		return err
	}
	nTools := len(distractors)
	need := sizes[len(sizes)-1] - len(base) - nTools
	if need > 0 {
		more, err := packageSkills(*pairs, need, taken, m)
		if err != nil {
			return err
		}
		distractors = append(distractors, more...)
	}
	queries, err := os.ReadFile(filepath.Join(*bench, "queries.jsonl"))
	if err != nil {
		return err
	}
	byHash := subsetOrder(ids)
	for _, n := range sizes {
		dir := filepath.Join(*outDir, fmt.Sprintf("skills-%d", n))
		if err := os.RemoveAll(filepath.Join(dir, "skills")); err != nil {
			return err
		}
		own, keep := base, func([]string) bool { return true }
		if n < len(base) {
			own, keep = subset(base, byHash[:n])
		}
		qfiles, err := queryFiles(queries, files, keep)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(*bench, "queries.jsonl"), err)
		}
		for _, s := range own {
			data, err := os.ReadFile(filepath.Join(*bench, "skills", s.id, "SKILL.md"))
			if err != nil {
				return err
			}
			if err := writeFile(filepath.Join(dir, "skills", s.id, "SKILL.md"), data); err != nil {
				return err
			}
		}
		for _, s := range distractors[:max(0, n-len(base))] {
			if err := writeFile(filepath.Join(dir, "skills", s.id, "SKILL.md"), s.data); err != nil {
				return err
			}
		}
		names := make([]string, 0, len(qfiles))
		for name := range qfiles {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := writeFile(filepath.Join(dir, name), qfiles[name]); err != nil {
				return err
			}
		}
		tools := max(0, min(n-len(base), nTools))
		fmt.Fprintf(out, "%s\t%d skills (%d benchmark, %d tools, %d packages)\n",
			dir, n, len(own), tools, max(0, n-len(base)-tools))
	}
	return nil
}

// subsetOrder is the order in which a catalog smaller than the benchmark
// takes the benchmark's skills: by the sha256 of their ids, a fixed
// shuffle that needs no seed, so every smaller catalog holds the skills of
// the smaller ones.
func subsetOrder(ids []string) []string {
	out := slices.Clone(ids)
	h := func(id string) string { s := sha256.Sum256([]byte(id)); return string(s[:]) }
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(h(a), h(b)) })
	return out
}

// subset is the benchmark's skills among ids, and a test of whether a
// query's gold skills are all among them: a query whose gold is cut from
// the catalog is left out (it is neither in-distribution nor a null the
// benchmark's author wrote).
func subset(base []benchSkill, ids []string) ([]benchSkill, func([]string) bool) {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	var own []benchSkill
	for _, s := range base {
		if in[s.id] {
			own = append(own, s)
		}
	}
	return own, func(gold []string) bool {
		for _, g := range gold {
			if !in[g] {
				return false
			}
		}
		return true
	}
}

// queryFiles renders every query file a size folder holds, with the
// queries and prompts whose gold keep accepts.
func queryFiles(queries []byte, files map[string][]prompt, keep func([]string) bool) (map[string][]byte, error) {
	var kept bytes.Buffer
	for i, line := range bytes.Split(queries, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var q benchQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if keep(q.Gold) {
			kept.Write(line)
			kept.WriteByte('\n')
		}
	}
	queries = kept.Bytes()
	out := map[string][]byte{"queries.jsonl": queries}
	// The benchmark's own queries split the way the prompts are, for a
	// gate fitted on one half and measured on the other.
	half := map[string]*bytes.Buffer{"dev": {}, "test": {}}
	for _, line := range bytes.SplitAfter(queries, []byte("\n")) {
		var q benchQuery
		if json.Unmarshal(line, &q) == nil {
			half[splitOf(q.ID)].Write(line)
		}
	}
	var all []prompt
	for _, pf := range promptFiles {
		var ps []prompt
		for _, p := range files[pf.name] {
			if keep(p.Gold) {
				ps = append(ps, p)
			}
		}
		all = append(all, ps...)
		stem := strings.TrimSuffix(pf.name, ".jsonl")
		out[stem+".jsonl"] = render(nil, ps, "", "")
		out[stem+"-dev.jsonl"] = render(nil, ps, "dev", "")
		out[stem+"-test.jsonl"] = render(nil, ps, "test", "")
	}
	out["all.jsonl"] = render(queries, all, "", "new_")
	out["all-dev.jsonl"] = render(queries, all, "dev", "new_")
	out["all-test.jsonl"] = render(queries, all, "test", "new_")
	for split, b := range half {
		out["queries-"+split+".jsonl"] = b.Bytes()
		out["fold-"+split+".jsonl"] = render(b.Bytes(), all, split, "new_")
	}
	return out, nil
}

// render appends the prompts of split ("" for all) as eval queries, each
// kind prefixed with kindPrefix.
func render(head []byte, ps []prompt, split, kindPrefix string) []byte {
	var b bytes.Buffer
	b.Write(head)
	for _, p := range ps {
		if split != "" && p.Split != split {
			continue
		}
		q := benchQuery{ID: p.ID, Query: p.Query, Gold: p.Gold, Kind: kindPrefix + p.Kind}
		if q.Gold == nil {
			q.Gold = []string{}
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(q)
	}
	return b.Bytes()
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}
