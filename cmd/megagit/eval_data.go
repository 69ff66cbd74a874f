package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/megagit/megagit/registry"
)

// evalPath makes a relative path relative to -C.
func evalPath(a *app, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.workDir(), p)
}

// loadEvalBench reads DIR/skills through the registry (malformed skills are
// skipped with one warning each) and the queries file.
func loadEvalBench(a *app, dir, qfile string) (evalBench, error) {
	var b evalBench
	skillDir := filepath.Join(dir, "skills")
	skills, problems, err := registry.LoadDir(skillDir)
	if err != nil {
		return b, err
	}
	for _, p := range problems {
		fmt.Fprintf(a.errOut, "megagit: warning: %v\n", p)
	}
	if len(skills) == 0 {
		return b, fmt.Errorf("%w: no skills in %s (want %s/<id>/SKILL.md)", registry.ErrNotFound, skillDir, skillDir)
	}
	b.docs = skillDocs(skills, nil)
	known := map[string]bool{}
	for i := range b.docs {
		// As a registry with root "skills" would inject it.
		b.docs[i].Path = path.Join("skills", skills[i].Path)
		known[b.docs[i].ID] = true
	}
	if b.queries, err = loadEvalQueries(qfile); err != nil {
		return b, err
	}
	unknown, example := 0, ""
	for _, q := range b.queries {
		for _, g := range q.Gold {
			if !known[g] {
				unknown++
				example = g
			}
		}
	}
	if unknown > 0 {
		fmt.Fprintf(a.errOut, "megagit: warning: %s: %d gold ids name no loaded skill (e.g. %q); they count as misses\n", qfile, unknown, example)
	}
	return b, nil
}

// loadEvalQueries parses queries.jsonl; a bad line is an error naming the
// file and line. Blank lines are skipped.
func loadEvalQueries(file string) ([]evalQuery, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []evalQuery
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var raw struct {
			evalQuery
			Gold *[]string `json:"gold"`
		}
		bad := func(msg string) error { return fmt.Errorf("%w: %s:%d: %s", registry.ErrInvalid, file, line, msg) }
		if err := json.Unmarshal(text, &raw); err != nil {
			return nil, bad(err.Error())
		}
		q := raw.evalQuery
		switch {
		case q.ID == "":
			return nil, bad(`missing "id"`)
		case q.Query == "":
			return nil, bad(`missing "query"`)
		case raw.Gold == nil:
			return nil, bad(`missing "gold" (use [] for a null query)`)
		}
		q.Gold = *raw.Gold
		if q.Gold == nil {
			q.Gold = []string{}
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no queries", registry.ErrInvalid, file)
	}
	return out, nil
}
