package models

import (
	"bytes"
	"io/fs"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/megagit/megagit/models/staticmodel"
)

// oldBuiltin embeds as the model did before it was read in place: both
// files copied out of the binary and decoded whole, then each token's int8
// row scaled and summed.
func oldBuiltin(t testing.TB) func(text string) []float32 {
	t.Helper()
	read := func(name string) *staticmodel.Array {
		b, err := fs.ReadFile(staticmodel.BuiltinFS(), "models/"+BuiltinID+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := staticmodel.ReadNPY(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	vec, sc := read("vectors.npy"), read("scales.npy")
	tok := mustTokenizer(t)
	dim := vec.Cols
	return func(text string) []float32 {
		sum := make([]float32, dim)
		n := 0
		for _, id := range tok.IDs(text) {
			if id < 0 || int(id) >= vec.Rows {
				continue
			}
			n++
			s := sc.F32[id]
			for j, v := range vec.I8[int(id)*dim : int(id+1)*dim] {
				sum[j] += s * float32(v)
			}
		}
		var norm float64
		for _, v := range sum {
			norm += float64(v) * float64(v)
		}
		if n == 0 || norm == 0 {
			clear(sum)
			return sum
		}
		inv := float32(1 / math.Sqrt(norm))
		for j := range sum {
			sum[j] *= inv
		}
		return sum
	}
}

// equivalenceTexts are a few hundred skill-like texts: random phrases over
// a software vocabulary, with some accents, unknown words and repeats.
func equivalenceTexts(n int) []string {
	words := strings.Fields(`validate stripe webhook signature extract text tables pdf documents
		fast small json parser zero allocations monitor server metrics alerts slack docker image
		build cache layer kubernetes deploy rollback helm chart terraform plan aws lambda s3 bucket
		postgres migration index query slow react component state hook typescript lint format
		git rebase conflict branch merge review pull request test flaky retry timeout http client
		oauth token refresh jwt session cookie csv excel spreadsheet chart plot résumé café naïve
		xyzzyplugh kafka consumer lag prometheus grafana dashboard log rotation cron schedule`)
	rng := rand.New(rand.NewPCG(42, 7))
	out := make([]string, n)
	for i := range out {
		k := 1 + rng.IntN(14)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		out[i] = strings.Join(ws, " ")
	}
	return out
}

// TestBuiltinInPlaceMatchesOld: reading rows in place changes no vector
// and no ranking, compared with the old copy-and-decode load and with a
// materialised float32 table (what training starts from).
func TestBuiltinInPlaceMatchesOld(t *testing.T) {
	m, err := Builtin()
	if err != nil {
		t.Skip(err)
	}
	old := oldBuiltin(t)
	table, dim := m.Table()
	flat, err := NewStatic("materialised", dim, table)
	if err != nil {
		t.Fatal(err)
	}
	texts := equivalenceTexts(400)
	got, _ := m.Embed(texts, Document) // the parallel path
	viaTable, _ := flat.Embed(texts, Document)
	var maxDiff float64
	for i, tx := range texts {
		want := old(tx)
		single := m.EmbedIDs(m.Tokenizer().IDs(tx))
		for j := range want {
			for _, v := range []float32{got[i][j], viaTable[i][j], single[j]} {
				maxDiff = max(maxDiff, math.Abs(float64(v-want[j])))
			}
		}
	}
	if maxDiff >= 1e-6 {
		t.Fatalf("max |new - old| = %g, want < 1e-6", maxDiff)
	}
	t.Logf("max |new - old| over %d texts: %g", len(texts), maxDiff)

	// Rank the last 300 texts for each of the first 100, both ways.
	queries, docs := texts[:100], texts[100:]
	oldDocs := make([][]float32, len(docs))
	for i, d := range docs {
		oldDocs[i] = old(d)
	}
	rank := func(q []float32, vs [][]float32) []int {
		score := make([]float64, len(vs))
		for i, v := range vs {
			score[i] = cosine(q, v)
		}
		order := make([]int, len(vs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			if score[a] != score[b] && !math.IsNaN(score[a]) && !math.IsNaN(score[b]) {
				if score[a] > score[b] {
					return -1
				}
				return 1
			}
			return a - b
		})
		return order
	}
	newQ, _ := m.Embed(queries, Query)
	for i, q := range queries {
		if a, b := rank(newQ[i], got[100:]), rank(old(q), oldDocs); !slices.Equal(a, b) {
			t.Fatalf("query %q ranks differently: new %v..., old %v...", q, a[:5], b[:5])
		}
	}
}

// TestBuiltinTableIsDequantizeRows: the table training starts from is,
// bit for bit, what DequantizeRows made of the decoded files.
func TestBuiltinTableIsDequantizeRows(t *testing.T) {
	m, err := Builtin()
	if err != nil {
		t.Skip(err)
	}
	read := func(name string) *staticmodel.Array {
		b, _ := fs.ReadFile(staticmodel.BuiltinFS(), "models/"+BuiltinID+"/"+name)
		a, err := staticmodel.ReadNPY(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	vec, sc := read("vectors.npy"), read("scales.npy")
	want := DequantizeRows(vec.I8, sc.F32, vec.Rows, vec.Cols)
	got, dim := m.Table()
	if dim != vec.Cols || len(got) != len(want) {
		t.Fatalf("Table: %d values, dim %d", len(got), dim)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("value %d: %g, DequantizeRows %g", i, got[i], want[i])
		}
	}
}

// TestBuiltinLoadCopiesNothing: opening the built-in model must not copy
// or decode its 7.8 MB table (allocation, not time, so it is stable).
func TestBuiltinLoadCopiesNothing(t *testing.T) {
	if _, err := Builtin(); err != nil {
		t.Skip(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := LoadStatic(staticmodel.BuiltinFS(), "models/"+BuiltinID)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Fatalf("LoadStatic(builtin) allocated %d bytes, want under 256 KiB", n)
	}
	runtime.KeepAlive(m)
}

// TestNPYLayoutAgreesWithReadNPY: the header reader used for in-place
// tables accepts and rejects what ReadNPY does, and finds the data.
func TestNPYLayoutAgreesWithReadNPY(t *testing.T) {
	var good bytes.Buffer
	if err := staticmodel.WriteNPY(&good, 3, 2, []int8{1, -2, 3, -4, 5, -6}); err != nil {
		t.Fatal(err)
	}
	g := good.Bytes()
	cases := map[string][]byte{
		"good":      g,
		"truncated": g[:len(g)-1],
		"trailing":  append(slices.Clone(g), 0),
		"short":     g[:9],
		"magic":     append([]byte("\x93NUMPX"), g[6:]...),
		"version":   append(append(slices.Clone(g[:6]), 9, 0), g[8:]...),
		"dtype":     bytes.Replace(slices.Clone(g), []byte("|i1"), []byte(">i1"), 1),
		"shape":     bytes.Replace(slices.Clone(g), []byte("(3, 2)"), []byte("(3, 9)"), 1),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			_, rerr := staticmodel.ReadNPY(bytes.NewReader(b))
			a, off, lerr := staticmodel.NPYLayout(bytes.NewReader(b), int64(len(b)))
			if (rerr == nil) != (lerr == nil) {
				t.Fatalf("ReadNPY err %v, npyLayout err %v", rerr, lerr)
			}
			if lerr == nil && (a.Rows != 3 || a.Cols != 2 || a.Dtype != staticmodel.DtypeInt8 || int8(b[off+1]) != -2) {
				t.Fatalf("layout %+v off %d", a, off)
			}
		})
	}
}

// BenchmarkBuiltinLoad is what a process pays to open the built-in model
// (the tokenizer is already loaded): the hook does this on every prompt.
func BenchmarkBuiltinLoad(b *testing.B) {
	if _, err := Builtin(); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadStatic(staticmodel.BuiltinFS(), "models/"+BuiltinID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuiltinEmbed is the prompt's share once the model is open, per
// built-in model.
func BenchmarkBuiltinEmbed(b *testing.B) {
	for _, id := range BuiltinIDs() {
		b.Run(id, func(b *testing.B) {
			m, err := BuiltinModel(id)
			if err != nil {
				b.Skip(err)
			}
			benchEmbedQuery(b, m)
		})
	}
}

// BenchmarkBuiltinTable is what training pays to materialise the table.
func BenchmarkBuiltinTable(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Table()
	}
}
