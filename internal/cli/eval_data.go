package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/local"
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
		bad := func(msg string) error { return fmt.Errorf("%w: %s:%d: %s", local.ErrInvalid, file, line, msg) }
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
		return nil, fmt.Errorf("%w: %s: no queries", local.ErrInvalid, file)
	}
	return out, nil
}

// The settings `eval --sweep` varies: the model's fusion weight and cosine
// floor (its profile's, which model.* overrides) and the fused floor.
const (
	sweepFusionW    = "model.fusion_w"
	sweepModelFloor = "model.abs_floor"
	sweepDynFloor   = "dynamic_k.abs_floor"
)

var sweepKeys = []string{sweepFusionW, sweepModelFloor, sweepDynFloor}

// sweepAxis is one --sweep flag: a key and the values it takes, in order.
type sweepAxis struct {
	key  string
	vals []float64
}

// sweepPoint is one grid setting: one value per axis, in flag order.
type sweepPoint []float64

// parseSweep parses the --sweep flags; nil when there are none.
func parseSweep(specs []string) ([]sweepAxis, error) {
	var grid []sweepAxis
	for _, spec := range specs {
		ax, err := parseSweepAxis(spec)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(grid, func(g sweepAxis) bool { return g.key == ax.key }) {
			return nil, fmt.Errorf("--sweep %s: key given twice; list all its values in one flag", ax.key)
		}
		grid = append(grid, ax)
	}
	return grid, nil
}

func parseSweepAxis(spec string) (sweepAxis, error) {
	key, list, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.TrimSpace(list) == "" {
		return sweepAxis{}, fmt.Errorf("--sweep %q: want KEY=V1,V2,... with KEY one of %s", spec, strings.Join(sweepKeys, ", "))
	}
	if !slices.Contains(sweepKeys, key) {
		return sweepAxis{}, fmt.Errorf("--sweep %s: unknown key (want %s)", key, strings.Join(sweepKeys, ", "))
	}
	ax := sweepAxis{key: key}
	for _, raw := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		switch {
		case err != nil || math.IsNaN(v):
			return sweepAxis{}, fmt.Errorf("--sweep %s: %q is not a number", key, raw)
		case key == sweepFusionW && (v < 0 || v > 1):
			return sweepAxis{}, fmt.Errorf("--sweep %s: %s is outside [0, 1]", key, raw)
		case key != sweepFusionW && (v <= 0 || v > 1):
			// In config.yaml a floor of 0 means the profile's: it cannot be kept.
			return sweepAxis{}, fmt.Errorf("--sweep %s: %s is outside (0, 1]", key, raw)
		case slices.Contains(ax.vals, v):
			return sweepAxis{}, fmt.Errorf("--sweep %s: %s is listed twice", key, raw)
		}
		ax.vals = append(ax.vals, v)
	}
	return ax, nil
}

// sweepPoints is the grid's cartesian product, the first flag outermost.
func sweepPoints(grid []sweepAxis) []sweepPoint {
	points := []sweepPoint{{}}
	for _, ax := range grid {
		next := make([]sweepPoint, 0, len(points)*len(ax.vals))
		for _, p := range points {
			for _, v := range ax.vals {
				next = append(next, append(slices.Clone(p), v))
			}
		}
		points = next
	}
	return points
}
