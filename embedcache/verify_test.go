package embedcache

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/models"
)

// rebuiltEmbedder is countingEmbedder under the same id after a rebuild:
// every text lands somewhere else.
type rebuiltEmbedder struct{ countingEmbedder }

func (e *rebuiltEmbedder) Embed(texts []string, k models.Kind) ([][]float32, error) {
	salted := make([]string, len(texts))
	for i, t := range texts {
		salted[i] = "v2:" + t
	}
	return e.countingEmbedder.Embed(salted, k)
}

func savedCache(t *testing.T, e models.Embedder, float16 bool, texts ...string) string {
	t.Helper()
	dir := t.TempDir()
	c := OpenCache(dir, e.ID(), e.Dim(), func(s string) { t.Fatal(s) })
	if _, err := EmbedDocs(e, c, docs(texts...)); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(float16); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCacheDrift(t *testing.T) {
	for _, f16 := range []bool{false, true} {
		dir := savedCache(t, &countingEmbedder{dim: 32}, f16, "one", "two")
		ins := Inspect(dir)
		if ins.Err != nil || ins.Anchor == nil || len(ins.Rows) != 3 {
			t.Fatalf("float16=%v: %+v", f16, ins)
		}
		same, err := CheckDrift(&countingEmbedder{dim: 32}, ins.Anchor)
		if err != nil || same.Drifted || same.Cosine < 0.999 {
			t.Fatalf("float16=%v, same model: %+v %v", f16, same, err)
		}
		other, err := CheckDrift(&rebuiltEmbedder{countingEmbedder{dim: 32}}, ins.Anchor)
		if err != nil || !other.Drifted || other.Cosine >= DriftThreshold {
			t.Fatalf("float16=%v, rebuilt model: %+v %v", f16, other, err)
		}
	}
	// The decision is a plain threshold on the cosine.
	for _, tc := range []struct {
		b       []float32
		drifted bool
	}{
		{[]float32{1, 0}, false},
		{[]float32{0.95, 0.312}, false},
		{[]float32{0.91, 0.415}, false},
		{[]float32{0.89, 0.456}, true},
		{[]float32{-1, 0}, true},
		{[]float32{0, 0}, true},
	} {
		cos := Cosine([]float32{1, 0}, tc.b)
		if got := cos < DriftThreshold; got != tc.drifted {
			t.Errorf("cos %v: drifted %v, want %v", cos, got, tc.drifted)
		}
	}
}

func TestCacheAnchorKeptAndAdded(t *testing.T) {
	e := &countingEmbedder{dim: 8}
	// A cache written before anchors: rows only.
	dir := t.TempDir()
	c := OpenCache(dir, e.ID(), e.Dim(), nil)
	v, _ := e.Embed([]string{"one"}, models.Document)
	c.Put(Row{Skill: "skill-a", Field: "description", SHA256: TextSHA("one")}, v[0])
	if err := c.Save(false); err != nil {
		t.Fatal(err)
	}
	if ins := Inspect(dir); ins.Err != nil || ins.Anchor != nil {
		t.Fatalf("pre-anchor cache: %+v", ins)
	}
	// Reading it embeds nothing and adds nothing; computing a vector adds the anchor.
	c = OpenCache(dir, e.ID(), e.Dim(), nil)
	if _, err := EmbedDocs(e, c, docs("one")); err != nil || c.Dirty() {
		t.Fatalf("cached read: dirty %v err %v", c.Dirty(), err)
	}
	if _, err := EmbedDocs(e, c, docs("one", "two")); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Anchor()
	want, _ := EmbedAnchor(e)
	if !ok || !equalVec(got, want) {
		t.Fatal("anchor not added with the first computed vector")
	}
	// An existing anchor is never replaced by EmbedDocs: it dates the rows.
	c.SetAnchor(make([]float32, 8))
	if _, err := EmbedDocs(e, c, docs("one", "two", "three")); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Anchor(); !equalVec(got, make([]float32, 8)) {
		t.Fatal("EmbedDocs replaced an existing anchor")
	}
}

func TestInspect(t *testing.T) {
	e := &countingEmbedder{dim: 4}
	good := savedCache(t, e, false, "one", "two", "three")
	vectors, _ := os.ReadFile(filepath.Join(good, "vectors.npy"))
	index, _ := os.ReadFile(filepath.Join(good, "index.json"))
	// A 4 x 8 array whose sha index.json names: consistent files, wrong shape.
	wide := npyBytes(t, 4, 8, make([]float32, 32))
	sum := sha256.Sum256(wide)
	wideIndex := strings.Replace(string(index), sha(vectors), hex.EncodeToString(sum[:]), 1)
	cases := []struct {
		name    string
		vec     []byte
		idx     []byte
		present bool
		model   string
		err     string
	}{
		{"missing", nil, nil, false, "", ""},
		{"good", vectors, index, true, "fake-model", ""},
		{"truncated vectors", vectors[:len(vectors)-7], index, true, "fake-model", "does not match index.json"},
		{"missing vectors", nil, index, true, "fake-model", "vectors.npy is missing"},
		{"garbage index", vectors, []byte("{not json"), true, "", "index.json:"},
		{"wrong shape", wide, []byte(wideIndex), true, "fake-model", "index.json says float32 (4, 4)"},
		{"bad dtype", vectors, []byte(strings.Replace(string(index), `"float32"`, `"int8"`, 1)), true, "fake-model", `dtype "int8"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.vec != nil {
				os.WriteFile(filepath.Join(dir, "vectors.npy"), tc.vec, 0o644)
			}
			if tc.idx != nil {
				os.WriteFile(filepath.Join(dir, "index.json"), tc.idx, 0o644)
			}
			ins := Inspect(dir)
			if ins.Present != tc.present || ins.Model != tc.model {
				t.Fatalf("present %v model %q, want %v %q", ins.Present, ins.Model, tc.present, tc.model)
			}
			if tc.err == "" && ins.Err != nil || tc.err != "" && (ins.Err == nil || !strings.Contains(ins.Err.Error(), tc.err)) {
				t.Fatalf("err %v, want %q", ins.Err, tc.err)
			}
			if tc.err != "" && ins.Anchor != nil {
				t.Fatal("anchor served from a bad cache")
			}
			// Whatever Inspect rejects, routing ignores (with a warning).
			w, warn := warnings(t)
			c := OpenCache(dir, e.ID(), e.Dim(), warn)
			if bad := tc.err != ""; bad != (len(*w) == 1) || bad && c.Len() != 0 {
				t.Fatalf("OpenCache: warnings %v, len %d", *w, c.Len())
			}
		})
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestCompare(t *testing.T) {
	row := func(skill, field, text string) Row { return Row{Skill: skill, Field: field, SHA256: TextSHA(text)} }
	item := func(skill, field, text string) DocText { return DocText{Skill: skill, Field: field, Text: text} }
	rows := []Row{
		{Skill: AnchorSkill, Field: AnchorField, SHA256: TextSHA(AnchorText)},
		row("alpha", "full", "alpha: a"), row("alpha", "name", "alpha"),
		row("beta", "full", "beta: old"), row("beta", "name", "beta"),
		row("gone", "full", "gone: x"),
		row("half", "full", "half: h"),
	}
	items := []DocText{
		item("alpha", "full", "alpha: a"), item("alpha", "name", "alpha"),
		item("beta", "full", "beta: new"), item("beta", "name", "beta"),
		item("half", "full", "half: h"), item("half", "name", "half"),
		item("new", "full", "new: n"), item("new", "name", "new"),
	}
	got := Compare(rows, items)
	want := Coverage{Skills: 1, Stale: []string{"beta"}, Missing: []string{"half", "new"}, Orphans: []string{"gone"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got := Compare(nil, nil); got.Skills != 0 || len(got.Stale)+len(got.Missing)+len(got.Orphans) != 0 {
		t.Fatalf("empty: %+v", got)
	}
}
