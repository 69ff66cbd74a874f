package models

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
		floor, fusion                   float64
		measured                        bool
	}{
		{"sentence-transformers/all-MiniLM-L6-v2", "all-minilm-l6-v2", "mean", "", "", "weak", 384, 0.25, 0.5, true},
		{"all-mpnet", "all-mpnet-base-v2", "mean", "", "", "weak", 768, 0.30, 0.6, true},
		{"BGE-M3", "bge-m3", "cls", "", "", "strong", 1024, 0.60, 0.5, false},
		{"SkillRet-0.6B", "skillret-0.6b", "last", "", "", "strong", 1024, 0.40, 0.5, false},
		{"Qwen3-0.6B", "qwen3-embedding-0.6b", "last", "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:", "", "strong", 1024, 0.35, 0.5, false},
		{"BGE-small-v1.5", "bge-small-en-v1.5", "cls", bgeQueryPrefix, "", "weak", 384, 0.70, 0.5, false},
		{"BAAI/bge-large-en-v1.5", "bge-large-en-v1.5", "cls", bgeQueryPrefix, "", "medium", 1024, 0.65, 0.5, false},
		{"e5-small", "e5-small-v2", "mean", "query: ", "passage: ", "weak", 384, 0.40, 0.5, false},
		{"intfloat/e5-base-v2", "e5-base-v2", "mean", "query: ", "passage: ", "medium", 768, 0.45, 0.5, false},
	}
	for _, tt := range tests {
		p, ok := ProfileFor(tt.name)
		if !ok || p.ID != tt.id || p.Pooling != tt.pooling || p.QueryPrefix != tt.qp || p.DocPrefix != tt.dp ||
			p.Tier != tt.tier || p.Dim != tt.dim || p.AbsFloor != tt.floor || p.FusionW != tt.fusion || p.Measured != tt.measured || !p.Normalize || p.Kind != "onnx" {
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
		// A profile megagit has not measured says so to the user.
		if !p.Measured && !strings.HasPrefix(p.Note, "not measured") && !strings.Contains(p.Note, "; not measured") {
			t.Errorf("%s: note %q does not say it was not measured", p.ID, p.Note)
		}
		if p.Measured != (p.Reference != nil) || p.Measured != p.Pinned() {
			t.Errorf("%s: measured %v, pinned %v, reference %v: a measured profile is pulled checked", p.ID, p.Measured, p.Pinned(), p.Reference != nil)
		}
		if r := p.Reference; r != nil && (len(r.Head) != len(r.Sentences) || len(r.Head[0]) != 16 || len(r.Cosines) != len(r.Sentences)*(len(r.Sentences)-1)/2) {
			t.Errorf("%s: incomplete reference %+v", p.ID, r)
		}
	}
	// all-MiniLM-L6-v2's tokenizer is pinned to the hub's file.
	p, _ := ProfileFor("all-minilm-l6-v2")
	if f := p.Files[1]; f.Name != TokenizerFile || f.SHA256 != "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037" || f.Size != 466247 {
		t.Errorf("all-minilm-l6-v2 tokenizer pin %+v", f)
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
