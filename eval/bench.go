package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
)

// Query is one line of queries.jsonl.
type Query struct {
	ID    string   `json:"id"`
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
	Kind  string   `json:"kind,omitempty"`
}

// kind is the query's own kind, else single/multi/null from its gold size.
func (q Query) kind() string {
	switch {
	case q.Kind != "":
		return q.Kind
	case len(q.Gold) == 0:
		return "null"
	case len(q.Gold) == 1:
		return "single"
	}
	return "multi"
}

// Bench is a loaded benchmark folder: its skills as routing sees them and
// its queries.
type Bench struct {
	Dir, QueryFile string
	Docs           []ranker.Doc
	Queries        []Query
}

// Load reads DIR/skills through the registry (malformed skills are
// skipped with one warning each) and the queries file. docs turns the
// skills into ranker documents as the command routes them; warn is told
// of every skipped skill and of gold ids that name no skill.
func Load(dir, queryFile string, docs func([]*registry.Skill) []ranker.Doc, warn func(msg string)) (*Bench, error) {
	skillDir := filepath.Join(dir, "skills")
	skills, problems, err := registry.LoadDir(skillDir)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		warn(p.Error())
	}
	if len(skills) == 0 {
		return nil, fmt.Errorf("%w: no skills in %s (want %s/<id>/SKILL.md)", registry.ErrNotFound, skillDir, skillDir)
	}
	b := &Bench{Dir: dir, QueryFile: queryFile, Docs: docs(skills)}
	known := map[string]bool{}
	for i := range b.Docs {
		// As a registry with root "skills" would inject it.
		b.Docs[i].Path = path.Join("skills", skills[i].Path)
		known[b.Docs[i].ID] = true
	}
	if b.Queries, err = LoadQueries(queryFile); err != nil {
		return nil, err
	}
	unknown, example := 0, ""
	for _, q := range b.Queries {
		for _, g := range q.Gold {
			if !known[g] {
				unknown++
				example = g
			}
		}
	}
	if unknown > 0 {
		warn(fmt.Sprintf("%s: %d gold ids name no loaded skill (e.g. %q); they count as misses", queryFile, unknown, example))
	}
	return b, nil
}

// LoadQueries parses queries.jsonl; a bad line is an error naming the
// file and line. Blank lines are skipped.
func LoadQueries(file string) ([]Query, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Query
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var raw struct {
			Query
			Gold *[]string `json:"gold"`
		}
		bad := func(msg string) error { return fmt.Errorf("%w: %s:%d: %s", errkind.ErrInvalid, file, line, msg) }
		if err := json.Unmarshal(text, &raw); err != nil {
			return nil, bad(err.Error())
		}
		q := raw.Query
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
		return nil, fmt.Errorf("%w: %s: no queries", errkind.ErrInvalid, file)
	}
	return out, nil
}
