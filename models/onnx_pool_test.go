package models

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPoolTokens(t *testing.T) {
	// 3 positions × 2 dims; the third is padding and must never count.
	states := []float32{3, 4, 1, 0, 100, 100}
	tests := []struct {
		pooling string
		norm    bool
		want    []float32
	}{
		{"mean", false, []float32{2, 2}},
		{"cls", false, []float32{3, 4}},
		{"last", false, []float32{1, 0}},
		{"cls", true, []float32{0.6, 0.8}},
		{"mean", true, []float32{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)}},
	}
	for _, tt := range tests {
		got := poolTokens(states, 2, 2, tt.pooling, tt.norm)
		if maxDiff(got, tt.want) > 1e-6 {
			t.Errorf("%s norm=%v: got %v, want %v", tt.pooling, tt.norm, got, tt.want)
		}
	}
	if got := poolTokens(states, 2, 0, "mean", true); !reflect.DeepEqual(got, []float32{0, 0}) {
		t.Errorf("no tokens: got %v, want zeros", got)
	}
}

func TestBatchPlan(t *testing.T) {
	lens := []int{5, 0, 9, 5, 1}
	if got, want := batchPlan(lens), [][]int{{2, 0, 3, 4}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("batchPlan = %v, want %v", got, want)
	}
	// Token bound: 512-token texts go at most 16 to a run; text bound: 32.
	long := make([]int, 40)
	short := make([]int, 70)
	for i := range long {
		long[i] = 512
	}
	for i := range short {
		short[i] = 3
	}
	for _, tc := range []struct {
		lens  []int
		sizes []int
	}{{long, []int{16, 16, 8}}, {short, []int{32, 32, 6}}} {
		var sizes []int
		seen := map[int]bool{}
		for _, b := range batchPlan(tc.lens) {
			sizes = append(sizes, len(b))
			for _, i := range b {
				seen[i] = true
			}
		}
		if !reflect.DeepEqual(sizes, tc.sizes) || len(seen) != len(tc.lens) {
			t.Errorf("batch sizes %v (covering %d), want %v", sizes, len(seen), tc.sizes)
		}
	}
}

func TestONNXProfiles(t *testing.T) {
	tests := []struct {
		name, id, pooling, qp, dp, tier string
		dim                             int
		floor                           float64
		measured                        bool
	}{
		{"BGE-M3", "bge-m3", "cls", "", "", "strong", 1024, 0.60, true},
		{"SkillRet-0.6B", "skillret-0.6b", "last", "", "", "strong", 1024, 0.40, true},
		{"Qwen3-0.6B", "qwen3-embedding-0.6b", "last", "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:", "", "strong", 1024, 0.35, true},
		{"BGE-small-v1.5", "bge-small-en-v1.5", "cls", bgeQueryPrefix, "", "weak", 384, 0.70, true},
		{"BAAI/bge-large-en-v1.5", "bge-large-en-v1.5", "cls", bgeQueryPrefix, "", "medium", 1024, 0.65, false},
		{"e5-small", "e5-small-v2", "mean", "query: ", "passage: ", "weak", 384, 0.40, false},
		{"intfloat/e5-base-v2", "e5-base-v2", "mean", "query: ", "passage: ", "medium", 768, 0.45, false},
		{"sentence-transformers/all-MiniLM-L6-v2", "all-minilm-l6-v2", "mean", "", "", "weak", 384, 0, false},
	}
	for _, tt := range tests {
		p, ok := ProfileFor(tt.name)
		if !ok || p.ID != tt.id || p.Pooling != tt.pooling || p.QueryPrefix != tt.qp || p.DocPrefix != tt.dp ||
			p.Tier != tt.tier || p.Dim != tt.dim || p.AbsFloor != tt.floor || p.Measured != tt.measured || !p.Normalize || p.Kind != "onnx" {
			t.Errorf("ProfileFor(%q) = %+v, %v", tt.name, p, ok)
		}
		if checkPooling(p.Pooling) != nil || len(p.Inputs) == 0 {
			t.Errorf("%s: pooling %q inputs %v", p.ID, p.Pooling, p.Inputs)
		}
		for _, f := range p.Files {
			if f.Name == "" || f.Path == "" || p.HubID == "" || p.Revision == "" {
				t.Errorf("%s: incomplete download %+v", p.ID, f)
			}
		}
	}
}

func TestRuntimePath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	if got, want := RuntimePath(""), filepath.Join("/data", "megagit", "onnxruntime", runtimeLibName()); got != want {
		t.Errorf("default = %s, want %s", got, want)
	}
	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	if got, want := RuntimePath(""), filepath.Join("/home/u", ".local", "share", "megagit", "onnxruntime", runtimeLibName()); got != want {
		t.Errorf("default = %s, want %s", got, want)
	}
	if got := RuntimePath("~/lib/ort.so"); got != filepath.Join("/home/u", "lib", "ort.so") {
		t.Errorf("~ path = %s", got)
	}
	if got := RuntimePath("/opt/ort.so"); got != "/opt/ort.so" {
		t.Errorf("abs path = %s", got)
	}
	if _, err := os.UserCacheDir(); err == nil {
		if d, err := ModelCacheDir("BAAI/bge-small"); err != nil || filepath.Base(d) != "baai_bge-small" {
			t.Errorf("ModelCacheDir = %s, %v", d, err)
		}
	}
}

func TestPrefixFor(t *testing.T) {
	p, _ := ProfileFor("e5-small")
	if prefixFor(p, Query) != "query: " || prefixFor(p, Document) != "passage: " {
		t.Fatalf("e5 prefixes: %q %q", prefixFor(p, Query), prefixFor(p, Document))
	}
	p, _ = ProfileFor("bge-small-en-v1.5")
	if prefixFor(p, Query) != bgeQueryPrefix || prefixFor(p, Document) != "" {
		t.Fatal("bge: documents must stay plain")
	}
}

func TestCheckONNXDir(t *testing.T) {
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flat, hf, noTok, empty := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write(filepath.Join(flat, ONNXModelFile))
	write(filepath.Join(flat, TokenizerFile))
	write(filepath.Join(hf, "onnx", ONNXModelFile))
	write(filepath.Join(hf, TokenizerFile))
	write(filepath.Join(noTok, ONNXModelFile))
	for dir, ok := range map[string]bool{flat: true, hf: true, noTok: false, empty: false} {
		err := CheckONNXDir(dir)
		if (err == nil) != ok || (err != nil && !errors.Is(err, ErrNoModel)) {
			t.Errorf("CheckONNXDir(%s) = %v, want ok=%v", dir, err, ok)
		}
	}
}
