package embedcache

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Merge3 merges the two sides of one model's cache row by row when a sync
// finds it changed on both: our rows stay; a skill text (skill, field and
// place) only they have is added; when both have it with different texts,
// theirs wins only if ours is still the base's (they re-embedded a text we
// did not touch).
// Vectors are looked up by text sha, so nothing is ever re-embedded here; a
// row whose text no longer matches the merged skill is simply recomputed by
// the next embed. The maps go from file name (index.json, vectors.npy) to
// bytes, as regsync.FileMerger hands them; dir names the cache in errors.
func Merge3(dir string, base, ours, theirs map[string][]byte) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "megagit-cache-merge-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var idx [3]cacheIndex
	var caches [3]*Cache
	var warned error
	for i, files := range []map[string][]byte{base, ours, theirs} {
		if files["index.json"] == nil {
			continue
		}
		if err := json.Unmarshal(files["index.json"], &idx[i]); err != nil {
			return nil, fmt.Errorf("%s/index.json: %v", dir, err)
		}
		d := filepath.Join(tmp, strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
				return nil, err
			}
		}
		caches[i] = OpenCache(d, idx[i].Model, idx[i].Dim, func(s string) { warned = fmt.Errorf("%s", s) })
		if warned != nil {
			return nil, warned
		}
	}
	if caches[1] == nil || caches[2] == nil {
		return nil, fmt.Errorf("%s: index.json missing on one side", dir)
	}
	if idx[1].Model != idx[2].Model || idx[1].Dim != idx[2].Dim {
		return nil, fmt.Errorf("%s: the two caches are for different models", dir)
	}
	merged := OpenCache(filepath.Join(tmp, "merged"), idx[1].Model, idx[1].Dim, nil)
	for _, p := range mergeRows(idx, caches) {
		if vec, found := p.from.Get(p.row.SHA256); found {
			merged.Put(p.row, vec)
		}
	}
	if err := merged.Save(idx[1].Dtype == "float16"); err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name := range ours {
		out[name] = ours[name]
	}
	for _, name := range []string{"index.json", "vectors.npy"} {
		data, err := os.ReadFile(filepath.Join(merged.dir, name))
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

// rowPick is one row of a merged cache and the side its vector comes from.
type rowPick struct {
	row  Row
	from *Cache
}

// mergeRows picks the merged rows from the base, ours and theirs indexes
// (see Merge3), in the order megagit embed writes them: skill by skill in
// name order, so the next embed finds nothing to rewrite. A row is one
// skill text (skill, field and place, Row.key).
func mergeRows(idx [3]cacheIndex, caches [3]*Cache) []rowPick {
	shaOf := func(ix cacheIndex) map[string]string {
		m := map[string]string{}
		for _, r := range ix.Rows {
			m[r.key()] = r.SHA256
		}
		return m
	}
	baseSHA, oursSHA, theirsSHA := shaOf(idx[0]), shaOf(idx[1]), shaOf(idx[2])
	var rows []rowPick
	for _, row := range idx[1].Rows {
		k := row.key()
		p := rowPick{row, caches[1]}
		if t, ok := theirsSHA[k]; ok && t != row.SHA256 && row.SHA256 == baseSHA[k] {
			p.row.SHA256, p.from = t, caches[2] // they re-embedded a text we did not touch
		}
		rows = append(rows, p)
	}
	for _, row := range idx[2].Rows {
		if _, ok := oursSHA[row.key()]; !ok {
			rows = append(rows, rowPick{row, caches[2]})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].row.Skill < rows[j].row.Skill })
	return rows
}
