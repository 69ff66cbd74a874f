package models

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tinyBERT is the test profile of testdata/tiny-bert (scripts/make-tiny-onnx.py).
func tinyBERT(pooling string) Profile {
	return Profile{ID: "tiny-bert", Kind: "onnx", Dim: 16, Pooling: pooling, Normalize: true, Inputs: bertInputs}
}

// onnxTestEnv returns a model folder (the tiny model + the real
// all-MiniLM-L6-v2 tokenizer.json) and the ONNX Runtime library. It skips
// when the library is absent, unless MEGAGIT_REQUIRE_ONNX is set (CI sets
// it after scripts/install-onnxruntime.sh): then a missing runtime fails.
func onnxTestEnv(t *testing.T) (dir, lib string) {
	t.Helper()
	require := os.Getenv("MEGAGIT_REQUIRE_ONNX") != ""
	lib = RuntimePath(os.Getenv("MEGAGIT_ONNXRUNTIME_LIB"))
	missing := ""
	if !ONNXSupported {
		missing = "this build has no ONNX support (cgo off or -tags noonnx)"
	} else if _, err := os.Stat(lib); err != nil {
		missing = "no ONNX Runtime at " + lib + " (run scripts/install-onnxruntime.sh)"
	}
	if missing != "" {
		if require {
			t.Fatalf("MEGAGIT_REQUIRE_ONNX is set but %s", missing)
		}
		t.Skip(missing)
	}
	return tinyModelDir(t), lib
}

// tinyModelDir writes the tiny model and the real all-MiniLM-L6-v2
// tokenizer.json (the shipped asset, pinned by TestDefaultTokenizerAsset)
// into a fresh folder.
func tinyModelDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", ONNXModelFile))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(defaultTokenizerGz))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ONNXModelFile), model, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TokenizerFile), tok, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustONNX(t *testing.T, dir, lib string, p Profile) Embedder {
	t.Helper()
	m, err := NewONNX(dir, p, lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.(*ONNXModel).Close() })
	return m
}

func mustEmbed(t *testing.T, m Embedder, texts []string, kind Kind) [][]float32 {
	t.Helper()
	v, err := m.Embed(texts, kind)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(v), len(texts))
	}
	return v
}

func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

type tinyExpected struct {
	Hidden    int `json:"hidden"`
	Sentences []struct {
		Text string    `json:"text"`
		IDs  []int32   `json:"ids"`
		Mean []float32 `json:"mean"`
		CLS  []float32 `json:"cls"`
		Last []float32 `json:"last"`
	} `json:"sentences"`
}

// TestONNXMatchesReference runs the real runtime on the tiny model and
// compares every pooling with the float64 numpy forward pass that
// scripts/make-tiny-onnx.py committed in expected.json.
func TestONNXMatchesReference(t *testing.T) {
	dir, lib := onnxTestEnv(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp tinyExpected
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(exp.Sentences))
	for i, s := range exp.Sentences {
		texts[i] = s.Text
		if got := tok.Encode(s.Text); !reflect.DeepEqual(got, s.IDs) {
			t.Errorf("Encode(%q) = %v, want reference %v", s.Text, got, s.IDs)
		}
	}
	for _, pooling := range []string{"mean", "cls", "last"} {
		t.Run(pooling, func(t *testing.T) {
			m := mustONNX(t, dir, lib, tinyBERT(pooling))
			if m.Dim() != exp.Hidden || m.ID() != "tiny-bert" {
				t.Fatalf("Dim, ID = %d, %s; want %d, tiny-bert", m.Dim(), m.ID(), exp.Hidden)
			}
			got := mustEmbed(t, m, texts, Document)
			for i, s := range exp.Sentences {
				want := map[string][]float32{"mean": s.Mean, "cls": s.CLS, "last": s.Last}[pooling]
				if d := maxDiff(got[i], want); d > 1e-4 {
					t.Errorf("%q: max diff %g from the numpy reference\n got %v\nwant %v", s.Text, d, got[i], want)
				}
				if n := norm2(got[i]); math.Abs(n-1) > 1e-5 {
					t.Errorf("%q: norm %g, want 1", s.Text, n)
				}
			}
		})
	}
}

func norm2(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// TestONNXBatchingAndDeterminism: a mixed batch (lengths from 1 to ~300
// tokens, blanks, accents) equals one-by-one embedding, and reruns are
// bit-identical.
func TestONNXBatchingAndDeterminism(t *testing.T) {
	dir, lib := onnxTestEnv(t)
	m := mustONNX(t, dir, lib, tinyBERT("mean"))
	texts := []string{
		"deploy the service to kubernetes",
		"",
		"café",
		strings.Repeat("stripe webhook signature validation ", 60),
		"x",
		"   ",
		"Ünïcödé Straße naïve résumé",
		"rotate the JWT signing keys every ninety days and revoke old tokens",
	}
	for i := 0; i < 40; i++ { // more than one batch
		texts = append(texts, strings.Repeat("word ", i%7+1)+string(rune('a'+i%26)))
	}
	batch := mustEmbed(t, m, texts, Document)
	again := mustEmbed(t, m, texts, Document)
	if !reflect.DeepEqual(batch, again) {
		t.Fatal("two runs of the same batch differ")
	}
	for i, text := range texts {
		one := mustEmbed(t, m, []string{text}, Document)[0]
		if d := maxDiff(batch[i], one); d > 1e-5 {
			t.Errorf("text %d (%.30q): batch vs single max diff %g", i, text, d)
		}
		blank := strings.TrimSpace(text) == ""
		if n := norm2(one); (blank && n != 0) || (!blank && math.Abs(n-1) > 1e-5) {
			t.Errorf("text %d (%.30q): norm %g", i, text, n)
		}
	}
}

// TestONNXPrefixes: the query prefix goes on queries, the document prefix
// on documents, nothing else changes.
func TestONNXPrefixes(t *testing.T) {
	dir, lib := onnxTestEnv(t)
	plain := mustONNX(t, dir, lib, tinyBERT("mean"))
	p := tinyBERT("mean")
	p.QueryPrefix, p.DocPrefix = "query: ", "passage: "
	pre := mustONNX(t, dir, lib, p)
	text := "validate the stripe webhook signature"
	q := mustEmbed(t, pre, []string{text}, Query)[0]
	d := mustEmbed(t, pre, []string{text}, Document)[0]
	wq := mustEmbed(t, plain, []string{"query: " + text}, Document)[0]
	wd := mustEmbed(t, plain, []string{"passage: " + text}, Query)[0]
	if !reflect.DeepEqual(q, wq) || !reflect.DeepEqual(d, wd) {
		t.Fatal("prefixes not applied by kind")
	}
	if reflect.DeepEqual(q, d) {
		t.Fatal("query and document vectors are equal despite different prefixes")
	}
}

// TestONNXUnknownModelDetectsIO: a profile without inputs or dim (a model
// folder megagit has no profile for) reads them from the graph.
func TestONNXUnknownModelDetectsIO(t *testing.T) {
	dir, lib := onnxTestEnv(t)
	p, known := ProfileFor("some-org/unknown-model")
	if known {
		t.Fatal("unknown model resolved to a profile")
	}
	m := mustONNX(t, dir, lib, p)
	om := m.(*ONNXModel)
	if m.Dim() != 16 || !reflect.DeepEqual(om.Profile().Inputs, bertInputs) {
		t.Fatalf("detected dim %d inputs %v", m.Dim(), om.Profile().Inputs)
	}
	ref := mustONNX(t, dir, lib, tinyBERT("mean"))
	a := mustEmbed(t, m, []string{"hello world"}, Query)[0]
	b := mustEmbed(t, ref, []string{"hello world"}, Query)[0]
	if !reflect.DeepEqual(a, b) {
		t.Fatal("detected-IO model differs from the hardcoded profile")
	}
}

func TestONNXErrors(t *testing.T) {
	if !ONNXSupported {
		_, err := NewONNX(t.TempDir(), tinyBERT("mean"), "/nonexistent/libonnxruntime.so.1")
		if !errors.Is(err, ErrNoRuntime) || !strings.Contains(err.Error(), "not in this build") {
			t.Fatalf("stub NewONNX err = %v", err)
		}
		return
	}
	good := tinyModelDir(t)
	noTok := t.TempDir()
	if err := os.Link(filepath.Join(good, ONNXModelFile), filepath.Join(noTok, ONNXModelFile)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		lib  string
		prof Profile
		want error
		msg  string
	}{
		{"no library", good, filepath.Join(t.TempDir(), "libonnxruntime.so.1"), tinyBERT("mean"), ErrNoRuntime, "install-onnxruntime"},
		{"empty library path", good, "", tinyBERT("mean"), ErrNoRuntime, "model.onnxruntime"},
		{"no model", t.TempDir(), "/x/lib.so", tinyBERT("mean"), ErrNoModel, "model.onnx"},
		{"no tokenizer", noTok, "/x/lib.so", tinyBERT("mean"), ErrNoModel, "tokenizer.json"},
		{"bad pooling", good, "/x/lib.so", tinyBERT("max"), nil, "unknown pooling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewONNX(tt.dir, tt.prof, tt.lib)
			if err == nil || !strings.Contains(err.Error(), tt.msg) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

// TestONNXProfileDimMismatch: a folder used with the profile of a model of
// another size fails at load, naming the folder, the profile and both
// sizes, whether the size is read from the graph or from a first run.
func TestONNXProfileDimMismatch(t *testing.T) {
	dir, lib := onnxTestEnv(t)
	bge, _ := ProfileFor("bge-small-en-v1.5")
	noInputs := tinyBERT("mean")
	noInputs.ID, noInputs.Dim, noInputs.Inputs = "wide", 384, nil
	for name, p := range map[string]Profile{"inputs known (first run)": bge, "inputs read from the graph": noInputs} {
		t.Run(name, func(t *testing.T) {
			m, err := NewONNX(dir, p, lib)
			if err == nil {
				m.(*ONNXModel).Close()
				t.Fatalf("NewONNX with a %d-dim profile on the 16-dim model: no error", p.Dim)
			}
			for _, want := range []string{dir, p.ID, "16-dimensional", "not the 384", "--profile"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v; want it to mention %q", err, want)
				}
			}
		})
	}
	// The right size loads, with or without the graph read.
	for _, p := range []Profile{tinyBERT("cls"), func() Profile { p := tinyBERT("cls"); p.Inputs = nil; return p }()} {
		mustONNX(t, dir, lib, p)
	}
}

// TestONNXConcurrent: one model serves several goroutines (a warm server
// does) with the same vectors as serial calls.
func TestONNXConcurrent(t *testing.T) {
	dir, lib := onnxTestEnv(t)
	m := mustONNX(t, dir, lib, tinyBERT("cls"))
	texts := []string{"rotate signing keys", "deploy to kubernetes", "café menu", "parse the json config file"}
	want := mustEmbed(t, m, texts, Query)
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 10; i++ {
				got, err := m.Embed(texts, Query)
				if err == nil && !reflect.DeepEqual(got, want) {
					err = errors.New("concurrent vectors differ")
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkONNXSession is what a process pays before its first ONNX
// embedding (tokenizer.json parse + session creation; the runtime library
// loads once per process). Real models cost far more than the tiny one.
func BenchmarkONNXSession(b *testing.B) {
	dir, lib := onnxBenchEnv(b)
	for b.Loop() {
		m, err := NewONNX(dir, tinyBERT("mean"), lib)
		if err != nil {
			b.Fatal(err)
		}
		m.(*ONNXModel).Close()
	}
}

// BenchmarkONNXQuery is one query embedding with a warm session.
func BenchmarkONNXQuery(b *testing.B) {
	dir, lib := onnxBenchEnv(b)
	m, err := NewONNX(dir, tinyBERT("mean"), lib)
	if err != nil {
		b.Fatal(err)
	}
	defer m.(*ONNXModel).Close()
	q := []string{"validate the stripe webhook signature before trusting the event"}
	for b.Loop() {
		if _, err := m.Embed(q, Query); err != nil {
			b.Fatal(err)
		}
	}
}

func onnxBenchEnv(b *testing.B) (dir, lib string) {
	lib = RuntimePath(os.Getenv("MEGAGIT_ONNXRUNTIME_LIB"))
	if _, err := os.Stat(lib); err != nil || !ONNXSupported {
		b.Skip("no ONNX Runtime (run scripts/install-onnxruntime.sh)")
	}
	return tinyModelDir(b), lib
}

// BenchmarkONNXQueryModel is one query embedding with a real model's warm
// session: MEGAGIT_BENCH_MODEL_DIR names its folder (model.onnx +
// tokenizer.json) and MEGAGIT_BENCH_PROFILE its profile (default
// all-minilm-l6-v2). It compares a model's float32 and int8 files, say.
func BenchmarkONNXQueryModel(b *testing.B) {
	_, lib := onnxBenchEnv(b)
	dir := os.Getenv("MEGAGIT_BENCH_MODEL_DIR")
	if dir == "" {
		b.Skip("MEGAGIT_BENCH_MODEL_DIR names no model folder")
	}
	id := cmp.Or(os.Getenv("MEGAGIT_BENCH_PROFILE"), "all-minilm-l6-v2")
	prof, ok := ProfileFor(id)
	if !ok {
		b.Fatalf("no profile %s", id)
	}
	m, err := NewONNX(dir, prof, lib)
	if err != nil {
		b.Fatal(err)
	}
	defer m.(*ONNXModel).Close()
	q := []string{"which of these ad sets are burning money and which deserve more"}
	for b.Loop() {
		if _, err := m.Embed(q, Query); err != nil {
			b.Fatal(err)
		}
	}
}
