package embedcache

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cacheFiles saves a cache of model m (dim 2) holding one row per
// "skill/field=text" ("skill/field#N=text": the field's text N) and
// returns its files as a sync hands them to Merge3.
func cacheFiles(t *testing.T, model string, rows ...string) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	c := OpenCache(dir, model, 2, nil)
	for i, r := range rows {
		key, text, _ := strings.Cut(r, "=")
		skill, field, _ := strings.Cut(key, "/")
		field, num, _ := strings.Cut(field, "#")
		n, _ := strconv.Atoi(num)
		c.Put(Row{Skill: skill, Field: field, N: n, SHA256: TextSHA(text)}, []float32{float32(i + 1), float32(len(text))})
	}
	if err := c.Save(false); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, name := range []string{"index.json", "vectors.npy"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	return out
}

// mergedRows opens Merge3's result and lists its rows as "skill/field=sha"
// ("skill/field#N=sha" past a field's first text).
func mergedRows(t *testing.T, files map[string][]byte) []string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := OpenCache(dir, "m", 2, func(s string) { t.Fatalf("merged cache: %s", s) })
	var out []string
	for _, r := range c.rows {
		if _, ok := c.Get(r.SHA256); !ok {
			t.Fatalf("row %+v has no vector", r)
		}
		field := r.Field
		if r.N > 0 {
			field += "#" + strconv.Itoa(r.N)
		}
		out = append(out, r.Skill+"/"+field+"="+r.SHA256)
	}
	return out
}

func TestMerge3(t *testing.T) {
	row := func(key, text string) string { return key + "=" + TextSHA(text) }
	tests := []struct {
		name               string
		base, ours, theirs []string
		want               []string
	}{
		{"each side added a skill: both kept, in skill order",
			[]string{"a/description=A"}, []string{"a/description=A", "c/description=C"}, []string{"a/description=A", "b/description=B"},
			[]string{row("a/description", "A"), row("b/description", "B"), row("c/description", "C")}},
		{"they re-embedded a text we did not touch: theirs",
			[]string{"a/description=old"}, []string{"a/description=old"}, []string{"a/description=new"},
			[]string{row("a/description", "new")}},
		{"both changed a text: ours",
			[]string{"a/description=old"}, []string{"a/description=mine"}, []string{"a/description=theirs"},
			[]string{row("a/description", "mine")}},
		{"no base: ours, then theirs we lack",
			nil, []string{"b/body=B"}, []string{"a/body=A", "b/body=other"},
			[]string{row("a/body", "A"), row("b/body", "B")}},
		{"several texts of one field: each its own row",
			[]string{"a/help=x"}, []string{"a/help=x", "a/help#1=y"}, []string{"a/help=x", "a/help#1=y", "a/help#2=z", "b/help=w", "b/help#1=v"},
			[]string{row("a/help", "x"), row("a/help#1", "y"), row("a/help#2", "z"), row("b/help", "w"), row("b/help#1", "v")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := map[string][]byte{}
			if tt.base != nil {
				base = cacheFiles(t, "m", tt.base...)
			}
			got, err := Merge3(".megagit/embeddings/m", base, cacheFiles(t, "m", tt.ours...), cacheFiles(t, "m", tt.theirs...))
			if err != nil {
				t.Fatal(err)
			}
			if rows := mergedRows(t, got); strings.Join(rows, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestMerge3Refuses(t *testing.T) {
	ours := cacheFiles(t, "m", "a/description=A")
	for name, tc := range map[string]struct {
		theirs map[string][]byte
		want   string
	}{
		"index missing on one side": {map[string][]byte{}, "dir: index.json missing on one side"},
		"another model":             {cacheFiles(t, "other", "a/description=A"), "dir: the two caches are for different models"},
		"unreadable index":          {map[string][]byte{"index.json": []byte("{")}, "dir/index.json: "},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Merge3("dir", nil, ours, tc.theirs); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
