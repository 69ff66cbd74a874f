package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/skillfile"
)

// prompt is one line of data/devsets' null.jsonl or paraphrase.jsonl.
type prompt struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind"`
	Split string   `json:"split"`
}

// The prompt files and the kinds each may hold.
var promptFiles = []struct {
	name  string
	kinds []string
	null  bool
}{
	{"null.jsonl", []string{"small_talk", "uncovered", "trap"}, true},
	{"paraphrase.jsonl", []string{"paraphrase"}, false},
}

// splitOf is a prompt's split, from its id alone: FNV-1a, even → dev.
func splitOf(id string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	if h.Sum32()%2 == 0 {
		return "dev"
	}
	return "test"
}

// readJSONL reads one JSON object per non-blank line, strictly.
func readJSONL[T any](file string) ([]T, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// loadPrompts reads both prompt files of dir, file by file.
func loadPrompts(dir string) (map[string][]prompt, error) {
	out := map[string][]prompt{}
	for _, pf := range promptFiles {
		ps, err := readJSONL[prompt](filepath.Join(dir, pf.name))
		if err != nil {
			return nil, err
		}
		out[pf.name] = ps
	}
	return out, nil
}

// checkFormat returns every problem of the prompt files that needs no
// benchmark: fields, kinds, gold sizes, splits, unique ids and queries.
func checkFormat(files map[string][]prompt) []string {
	var probs []string
	ids, queries := map[string]string{}, map[string]string{}
	for _, pf := range promptFiles {
		for _, p := range files[pf.name] {
			where := pf.name + " " + p.ID
			switch {
			case p.ID == "" || strings.TrimSpace(p.Query) == "":
				probs = append(probs, where+": empty id or query")
			case p.Gold == nil:
				probs = append(probs, where+`: missing "gold"`)
			case pf.null && len(p.Gold) != 0:
				probs = append(probs, where+": a null prompt has gold skills")
			case !pf.null && len(p.Gold) != 1:
				probs = append(probs, where+": a paraphrase needs exactly one gold skill")
			}
			if !contains(pf.kinds, p.Kind) {
				probs = append(probs, fmt.Sprintf("%s: kind %q, want one of %v", where, p.Kind, pf.kinds))
			}
			if want := splitOf(p.ID); p.Split != want {
				probs = append(probs, fmt.Sprintf("%s: split %q, want %q (from the id)", where, p.Split, want))
			}
			if prev, ok := ids[p.ID]; ok {
				probs = append(probs, fmt.Sprintf("%s: id also in %s", where, prev))
			}
			ids[p.ID] = pf.name
			q := strings.ToLower(strings.Join(strings.Fields(p.Query), " "))
			if prev, ok := queries[q]; ok {
				probs = append(probs, fmt.Sprintf("%s: same query as %s", where, prev))
			}
			queries[q] = p.ID
		}
	}
	return probs
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// benchSkill is what the checks need of a benchmark skill.
type benchSkill struct{ id, desc string }

// loadBenchSkills reads DIR/skills/<id>/SKILL.md, sorted by id.
func loadBenchSkills(dir string) ([]benchSkill, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "skills"))
	if err != nil {
		return nil, err
	}
	var out []benchSkill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, "skills", e.Name(), "SKILL.md")
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := skillfile.Parse(p, data)
		if err != nil {
			return nil, err
		}
		out = append(out, benchSkill{id: e.Name(), desc: f.Description()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	if len(out) == 0 {
		return nil, fmt.Errorf("no skills in %s", filepath.Join(dir, "skills"))
	}
	return out, nil
}

// sharedTokens is the prompt's tokens that also occur in the skill's id
// (hyphens as spaces) or description, as ranker.Tokenize sees them.
func sharedTokens(query string, s benchSkill) []string {
	skill := map[string]bool{}
	for _, t := range ranker.Tokenize(strings.ReplaceAll(s.id, "-", " ") + " " + s.desc) {
		skill[t] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range ranker.Tokenize(query) {
		if skill[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// checkAgainst returns the problems that need the benchmark: unknown gold
// ids, ids reused from its queries, paraphrases sharing a token with gold.
func checkAgainst(files map[string][]prompt, skills []benchSkill, benchQueryIDs map[string]bool) []string {
	byID := map[string]benchSkill{}
	for _, s := range skills {
		byID[s.id] = s
	}
	var probs []string
	for _, pf := range promptFiles {
		for _, p := range files[pf.name] {
			where := pf.name + " " + p.ID
			if benchQueryIDs[p.ID] {
				probs = append(probs, where+": id reuses a benchmark query id")
			}
			for _, g := range p.Gold {
				s, ok := byID[g]
				if !ok {
					probs = append(probs, fmt.Sprintf("%s: gold %q names no benchmark skill", where, g))
					continue
				}
				if shared := sharedTokens(p.Query, s); len(shared) > 0 {
					probs = append(probs, fmt.Sprintf("%s: shares %v with %s", where, shared, g))
				}
			}
		}
	}
	return probs
}

// benchQuery is one line of the benchmark's queries.jsonl, kept whole.
type benchQuery struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind,omitempty"`
}

func loadBenchQueryIDs(dir string) (map[string]bool, error) {
	data, err := os.ReadFile(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var q benchQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, err
		}
		ids[q.ID] = true
	}
	return ids, nil
}

func checkCmd(args []string, out, errOut io.Writer) error {
	fs := newFlags("check", errOut)
	dir := fs.String("prompts", filepath.Join("data", "devsets"), "")
	bench := fs.String("bench", "", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	files, err := loadPrompts(*dir)
	if err != nil {
		return err
	}
	probs := checkFormat(files)
	if *bench != "" {
		skills, err := loadBenchSkills(*bench)
		if err != nil {
			return err
		}
		qids, err := loadBenchQueryIDs(*bench)
		if err != nil {
			return err
		}
		probs = append(probs, checkAgainst(files, skills, qids)...)
	}
	for _, p := range probs {
		fmt.Fprintln(out, p)
	}
	counts := map[string]int{}
	for _, ps := range files {
		for _, p := range ps {
			counts[p.Kind+"/"+p.Split]++
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(errOut, "%s\t%d\n", k, counts[k])
	}
	if len(probs) > 0 {
		return fmt.Errorf("%d problems", len(probs))
	}
	return nil
}
