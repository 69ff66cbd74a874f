package embedcache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/models/staticmodel"
)

// countingEmbedder hashes text into a deterministic unit vector and counts
// the texts it was asked to embed.
type countingEmbedder struct {
	dim   int
	texts []string
}

func (e *countingEmbedder) ID() string { return "fake-model" }
func (e *countingEmbedder) Dim() int   { return e.dim }
func (e *countingEmbedder) Embed(texts []string, _ models.Kind) ([][]float32, error) {
	e.texts = append(e.texts, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dim)
		sha := TextSHA(t)
		for j := range v {
			v[j] = float32(sha[j%64]) - 80
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

func docs(texts ...string) []DocText {
	var out []DocText
	for i, t := range texts {
		out = append(out, DocText{Skill: "skill-" + string(rune('a'+i)), Field: "description", Text: t})
	}
	return out
}

func warnings(t *testing.T) (*[]string, func(string)) {
	var w []string
	return &w, func(s string) { t.Log("warn:", s); w = append(w, s) }
}

func TestCacheRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	e := &countingEmbedder{dim: 6}
	w, warn := warnings(t)
	c := OpenCache(dir, e.ID(), e.Dim(), warn)
	if len(*w) != 0 || c.Len() != 0 {
		t.Fatalf("missing cache (silent): warnings %v, len %d", *w, c.Len())
	}
	items := docs("validate webhooks", "extract pdf text", "validate webhooks") // a duplicate text
	first, err := EmbedDocs(e, c, items)
	if err != nil {
		t.Fatal(err)
	}
	// Two distinct texts plus the drift anchor, which a cache gains with
	// its first computed vectors; three skill rows plus the anchor's.
	if len(e.texts) != 3 || e.texts[2] != AnchorText || !c.Dirty() || c.Len() != 4 {
		t.Fatalf("embedded %v, dirty %v, len %d", e.texts, c.Dirty(), c.Len())
	}
	if _, ok := c.Anchor(); !ok {
		t.Fatal("no anchor after EmbedDocs")
	}
	if err := c.Save(false); err != nil {
		t.Fatal(err)
	}
	if c.Dirty() {
		t.Fatal("dirty after Save")
	}

	// Reopen: nothing to embed, identical vectors.
	*w = nil
	c2 := OpenCache(dir, e.ID(), e.Dim(), warn)
	e.texts = nil
	second, err := EmbedDocs(e, c2, items)
	if err != nil || len(e.texts) != 0 || len(*w) != 0 || c2.Dirty() {
		t.Fatalf("reopen: err %v, embedded %v, warnings %v, dirty %v", err, e.texts, *w, c2.Dirty())
	}
	for i := range first {
		if !equalVec(first[i], second[i]) {
			t.Fatalf("row %d changed across save/load", i)
		}
	}

	// Change one text: only it is re-embedded; Retain drops what is gone.
	items[1].Text = "extract tables from pdf"
	third, err := EmbedDocs(e, c2, items)
	if err != nil || len(e.texts) != 1 || e.texts[0] != items[1].Text {
		t.Fatalf("changed text: embedded %v, err %v", e.texts, err)
	}
	if equalVec(third[1], second[1]) || !equalVec(third[0], second[0]) {
		t.Fatal("wrong vectors after a change")
	}
	c2.Retain(func(skill, _, _ string) bool { return skill != "skill-c" })
	if c2.Len() != 3 {
		t.Fatalf("Retain: len %d", c2.Len())
	}
	if _, ok := c2.Get(TextSHA("extract pdf text")); ok {
		t.Fatal("stale sha still served")
	}
	if err := c2.Save(false); err != nil {
		t.Fatal(err)
	}
	var idx cacheIndex
	raw, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	if err := json.Unmarshal(raw, &idx); err != nil || len(idx.Rows) != 3 || idx.Model != "fake-model" || idx.Dim != 6 {
		t.Fatalf("index.json: %s", raw)
	}
	// A nil cache just embeds.
	if v, err := EmbedDocs(e, nil, items); err != nil || len(v) != 3 {
		t.Fatal(err)
	}
	c2.Put(Row{Skill: "x", Field: "f", SHA256: "sha"}, []float32{1}) // wrong dim: ignored
	if c2.Dirty() {
		t.Fatal("wrong-length Put accepted")
	}
}

func TestCacheBadFilesIgnored(t *testing.T) {
	e := &countingEmbedder{dim: 4}
	good := t.TempDir()
	c := OpenCache(good, e.ID(), e.Dim(), nil)
	if _, err := EmbedDocs(e, c, docs("one", "two", "three")); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(false); err != nil {
		t.Fatal(err)
	}
	vectors, _ := os.ReadFile(filepath.Join(good, "vectors.npy"))
	index, _ := os.ReadFile(filepath.Join(good, "index.json"))
	cases := []struct {
		name     string
		model    string
		dim      int
		vec, idx []byte
	}{
		{"truncated vectors", "fake-model", 4, vectors[:len(vectors)-5], index},
		{"corrupt vectors", "fake-model", 4, append(append([]byte{}, vectors[:130]...), make([]byte, len(vectors)-130)...), index},
		{"garbage index", "fake-model", 4, vectors, []byte("{not json")},
		{"other model", "another-model", 4, vectors, index},
		{"other build of the model", "fake-model@2026-01-01", 4, vectors, index},
		{"other dim", "fake-model", 8, vectors, index},
		{"missing vectors", "fake-model", 4, nil, index},
		{"row count", "fake-model", 4, vectors, []byte(strings.Replace(string(index), `"rows": [`, `"rows": [{"skill":"z","field":"f","sha256":"`+strings.Repeat("0", 64)+`"},`, 1))},
		// A crash between the two renames: new vectors, old index.
		{"vectors newer than index", "fake-model", 4, npyBytes(t, 3, 4, make([]float32, 12)), index},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.vec != nil {
				os.WriteFile(filepath.Join(dir, "vectors.npy"), tc.vec, 0o644)
			}
			os.WriteFile(filepath.Join(dir, "index.json"), tc.idx, 0o644)
			w, warn := warnings(t)
			c := OpenCache(dir, tc.model, tc.dim, warn)
			if len(*w) != 1 || c.Len() != 0 {
				t.Fatalf("warnings %v, len %d: want one warning and an empty cache", *w, c.Len())
			}
			if _, ok := c.Get(TextSHA("one")); ok {
				t.Fatal("served a vector from a bad cache")
			}
		})
	}
}

func TestCacheFloat16(t *testing.T) {
	dir := t.TempDir()
	e := &countingEmbedder{dim: 64}
	c := OpenCache(dir, e.ID(), e.Dim(), nil)
	items := docs("alpha", "beta", "gamma", "delta")
	orig, _ := EmbedDocs(e, c, items)
	if err := c.Save(true); err != nil {
		t.Fatal(err)
	}
	st32, _ := os.Stat(filepath.Join(dir, "vectors.npy"))
	inMem, _ := c.Get(TextSHA("alpha"))
	c2 := OpenCache(dir, e.ID(), e.Dim(), func(s string) { t.Fatal(s) })
	for i, it := range items {
		v, ok := c2.Get(TextSHA(it.Text))
		if !ok {
			t.Fatalf("%s missing", it.Text)
		}
		for j := range v {
			// Half precision keeps 11 significant bits: relative error ≤ 2^-11.
			if d := math.Abs(float64(v[j] - orig[i][j])); d > math.Abs(float64(orig[i][j]))/2048+1e-7 {
				t.Fatalf("%s[%d]: %g vs %g", it.Text, j, v[j], orig[i][j])
			}
		}
		if i == 0 && !equalVec(v, inMem) {
			t.Fatal("saving process and loading process see different vectors")
		}
	}
	if st32.Size() > int64(128+5*64*2) { // four rows and the anchor
		t.Fatalf("float16 file is %d bytes", st32.Size())
	}
}

func TestCacheDir(t *testing.T) {
	for id, want := range map[string]string{
		"megagit-static-v1":      "megagit-static-v1",
		"BAAI/bge-small-en-v1.5": "BAAI_bge-small-en-v1.5",
		"..":                     "_..",
	} {
		if got := filepath.Base(CacheDir("/r", id)); got != want {
			t.Errorf("CacheDir(%q) = %q, want %q", id, got, want)
		}
	}
}

// BenchmarkLoadOpenCache reads a cache of 1,000 skills × 2 texts × 256
// float32, as the hook does at every prompt.
func BenchmarkLoadOpenCache(b *testing.B) {
	const dim, rows = 256, 2000
	dir := b.TempDir()
	c := OpenCache(dir, "bench", dim, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range rows {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		c.Put(Row{Skill: fmt.Sprintf("skill-%05d", i/2), Field: []string{"full", "name"}[i%2], SHA256: TextSHA(fmt.Sprint(i))}, v)
	}
	if err := c.Save(false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if c := OpenCache(dir, "bench", dim, nil); c.Len() != rows {
			b.Fatalf("%d rows", c.Len())
		}
	}
}

// npyBytes is a .npy file of data, as the cache writes it.
func npyBytes(t testing.TB, rows, cols int, data any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := staticmodel.WriteNPY(&buf, rows, cols, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
