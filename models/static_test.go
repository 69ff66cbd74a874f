package models

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/models/staticmodel"
)

func randomTable(rows, dim int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := make([]float32, rows*dim)
	for i := range t {
		t[i] = float32(rng.NormFloat64() * 0.1)
	}
	return t
}

func testStatic(t testing.TB, dim int) (*StaticModel, []float32) {
	t.Helper()
	tok := mustTokenizer(t)
	table := randomTable(tok.VocabSize(), dim, 1)
	m, err := NewStatic("test-static", dim, table)
	if err != nil {
		t.Fatal(err)
	}
	return m, table
}

func TestStaticPooling(t *testing.T) {
	const dim = 16
	m, table := testStatic(t, dim)
	vecs, err := m.Embed([]string{"hello world", "", "[CLS] [SEP]", "hello world hello world", "🚀"}, Query)
	if err != nil {
		t.Fatal(err)
	}
	// Mean of the rows of "hello" (7592) and "world" (2088), normalised.
	want := make([]float32, dim)
	for j := range want {
		want[j] = (table[7592*dim+j] + table[2088*dim+j]) / 2
	}
	if c := cosine(vecs[0], want); c < 0.999999 {
		t.Fatalf("cosine with hand-pooled vector = %v", c)
	}
	var norm float64
	for _, v := range vecs[0] {
		norm += float64(v * v)
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Fatalf("norm² = %v", norm)
	}
	for _, i := range []int{1, 2} {
		for _, v := range vecs[i] {
			if v != 0 {
				t.Fatalf("text %d: want zero vector, got %v", i, vecs[i])
			}
		}
	}
	if c := cosine(vecs[0], vecs[3]); c < 0.999999 {
		t.Fatalf("repetition changed the mean direction: %v", c)
	}
	if c := cosine(vecs[4], table[100*dim:101*dim]); c < 0.999999 {
		t.Fatalf("[UNK] should be pooled like any token: %v", c)
	}
	if got := m.EmbedIDs([]int32{-1, 1 << 30}); len(got) != dim || got[0] != 0 {
		t.Fatalf("unknown ids: %v", got)
	}
}

func TestStaticBatchMatchesSingle(t *testing.T) {
	m, _ := testStatic(t, 8)
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = benchTexts[i%len(benchTexts)] + strings.Repeat(" extra", i%5)
	}
	batch, err := m.Embed(texts, Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range texts {
		one, _ := m.Embed([]string{tx}, Document)
		for j := range one[0] {
			if one[0][j] != batch[i][j] {
				t.Fatalf("text %d differs between batch and single", i)
			}
		}
	}
}

func TestStaticSaveLoad(t *testing.T) {
	const dim = 8
	m, table := testStatic(t, dim)
	texts := []string{"validate webhook signature", "extract text from pdf", "café"}
	ref, _ := m.Embed(texts, Query)
	for _, quant := range []bool{false, true} {
		dir := t.TempDir()
		if err := SaveStatic(dir, "saved", dim, table, quant, map[string]any{"epochs": 3}); err != nil {
			t.Fatal(err)
		}
		got, err := LoadStatic(os.DirFS(dir), ".")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID() != "saved" || got.Dim() != dim || got.Meta().Recipe["epochs"] != float64(3) {
			t.Fatalf("meta %+v", got.Meta())
		}
		if want := map[bool]string{false: "float32", true: "int8"}[quant]; got.Meta().Dtype != want {
			t.Fatalf("dtype %s, want %s", got.Meta().Dtype, want)
		}
		_, err = os.Stat(filepath.Join(dir, "scales.npy"))
		if quant != (err == nil) {
			t.Fatalf("quantize=%v but scales.npy exists=%v", quant, err == nil)
		}
		tab, d := got.Table()
		if d != dim || len(tab) != len(table) {
			t.Fatalf("Table: %d values, dim %d", len(tab), d)
		}
		vecs, _ := got.Embed(texts, Query)
		for i := range texts {
			if c := cosine(vecs[i], ref[i]); c < 0.999 {
				t.Fatalf("quantize=%v text %q: cosine %v after save/load", quant, texts[i], c)
			}
		}
	}
}

func TestLoadStaticErrors(t *testing.T) {
	const dim = 4
	_, table := testStatic(t, dim)
	base := t.TempDir()
	if err := SaveStatic(base, "m", dim, table, true, nil); err != nil {
		t.Fatal(err)
	}
	editMeta := func(f func(m map[string]any)) func(dir string) {
		return func(dir string) {
			raw, _ := os.ReadFile(filepath.Join(dir, "model.json"))
			var m map[string]any
			json.Unmarshal(raw, &m)
			f(m)
			raw, _ = json.Marshal(m)
			os.WriteFile(filepath.Join(dir, "model.json"), raw, 0o644)
		}
	}
	cases := []struct {
		name, wantInErr string
		break_          func(dir string)
	}{
		{"no model.json", "model.json", func(d string) { os.Remove(filepath.Join(d, "model.json")) }},
		{"bad json", "model.json", func(d string) { os.WriteFile(filepath.Join(d, "model.json"), []byte("{"), 0o644) }},
		{"dim", "vectors.npy", editMeta(func(m map[string]any) { m["dim"] = 5 })},
		{"zero dim", "field dim", editMeta(func(m map[string]any) { m["dim"] = 0 })},
		{"vocab", "vocab_size", editMeta(func(m map[string]any) { m["vocab_size"] = 100 })},
		{"dtype", "dtype", editMeta(func(m map[string]any) { m["dtype"] = "float16" })},
		{"dtype mismatch", "vectors.npy", editMeta(func(m map[string]any) { m["dtype"] = "float32" })},
		{"tokenizer", "tokenizer_sha256", editMeta(func(m map[string]any) { m["tokenizer_sha256"] = "abc" })},
		{"no id", "field id", editMeta(func(m map[string]any) { delete(m, "id") })},
		{"no scales", "scales.npy", func(d string) { os.Remove(filepath.Join(d, "scales.npy")) }},
		{"short scales", "scales.npy", func(d string) {
			f, _ := os.Create(filepath.Join(d, "scales.npy"))
			staticmodel.WriteNPY(f, 3, 1, []float32{1, 2, 3})
			f.Close()
		}},
		{"truncated vectors", "vectors.npy", func(d string) { os.Truncate(filepath.Join(d, "vectors.npy"), 1000) }},
		{"trailing vectors", "trailing data", func(d string) {
			f, _ := os.OpenFile(filepath.Join(d, "vectors.npy"), os.O_APPEND|os.O_WRONLY, 0)
			f.Write([]byte{0})
			f.Close()
		}},
		{"negative scale", "row 5000 has scale -1", func(d string) {
			sc := make([]float32, len(table)/dim)
			sc[5000] = -1
			f, _ := os.Create(filepath.Join(d, "scales.npy"))
			staticmodel.WriteNPY(f, len(sc), 1, sc)
			f.Close()
		}},
		{"NaN scale", "has scale NaN", func(d string) {
			sc := make([]float32, len(table)/dim)
			sc[len(sc)-1] = float32(math.NaN())
			f, _ := os.Create(filepath.Join(d, "scales.npy"))
			staticmodel.WriteNPY(f, len(sc), 1, sc)
			f.Close()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"model.json", "vectors.npy", "scales.npy"} {
				b, _ := os.ReadFile(filepath.Join(base, f))
				os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			tc.break_(dir)
			_, err := LoadStatic(os.DirFS(dir), ".")
			if err == nil || !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("err = %v, want mention of %q", err, tc.wantInErr)
			}
		})
	}
	if err := SaveStatic(t.TempDir(), "m", dim, table[:10], false, nil); err == nil {
		t.Fatal("SaveStatic with a short table: want error")
	}
}

// TestBuiltin: until the trained files are committed the embedded folder
// holds only README.md and Builtin says so; afterwards it must load.
func TestBuiltin(t *testing.T) {
	m, err := Builtin()
	if _, statErr := fs.Stat(staticmodel.BuiltinFS(), "models/"+BuiltinID+"/model.json"); statErr != nil {
		if !errors.Is(err, ErrNoBuiltin) {
			t.Fatalf("no model.json embedded: err = %v, want ErrNoBuiltin", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != BuiltinID {
		t.Fatalf("ID = %q", m.ID())
	}
	v, _ := m.Embed([]string{"extract text from pdf files"}, Query)
	if len(v[0]) != m.Dim() {
		t.Fatal("bad vector")
	}
}

const benchQuery = "validate the stripe webhook signature before processing payments" // ~10 tokens

func benchModel(b *testing.B, dim int, quant bool) *StaticModel {
	m, table := testStatic(b, dim)
	if !quant {
		return m
	}
	dir := b.TempDir()
	if err := SaveStatic(dir, "bench", dim, table, true, nil); err != nil {
		b.Fatal(err)
	}
	m, err := LoadStatic(os.DirFS(dir), ".")
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkStaticEmbedQuery(b *testing.B) {
	for _, c := range []struct {
		name  string
		dim   int
		quant bool
	}{{"int8-256", 256, true}, {"f32-256", 256, false}, {"int8-512", 512, true}, {"f32-512", 512, false}} {
		b.Run(c.name, func(b *testing.B) {
			benchEmbedQuery(b, benchModel(b, c.dim, c.quant))
		})
	}
}

func BenchmarkLoadStaticInt8(b *testing.B) {
	m := benchModel(b, 256, false)
	tab, _ := m.Table()
	dir := b.TempDir()
	if err := SaveStatic(dir, "bench", 256, tab, true, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadStatic(os.DirFS(dir), "."); err != nil {
			b.Fatal(err)
		}
	}
}

// benchEmbedQuery times pooling a query's token ids, and tokenising and
// pooling it.
func benchEmbedQuery(b *testing.B, m *StaticModel) {
	ids := m.Tokenizer().IDs(benchQuery)
	b.Run("pool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.EmbedIDs(ids)
		}
	})
	b.Run("tokenize+pool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Embed([]string{benchQuery}, Query)
		}
	})
}
