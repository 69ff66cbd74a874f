package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testHub serves a tiny model folder in the hub layout and records the
// requests it saw.
type testHub struct {
	files map[string][]byte // path under /test/tiny/resolve/r1/
	mu    sync.Mutex
	reqs  []string // "path range"
	agent string   // the last request's User-Agent
	srv   *httptest.Server
}

func newTestHub(t *testing.T) *testHub {
	t.Helper()
	model, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	h := &testHub{files: map[string][]byte{
		"onnx/model.onnx": model,
		"tokenizer.json":  []byte(`{"version":"1.0","model":{"type":"WordPiece"}}`),
	}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := strings.CutPrefix(r.URL.Path, "/test/tiny/resolve/r1/")
		h.mu.Lock()
		h.reqs = append(h.reqs, strings.TrimSpace(p+" "+r.Header.Get("Range")))
		h.agent = r.UserAgent()
		h.mu.Unlock()
		data, found := h.files[p]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(data)) // honours Range
	}))
	t.Cleanup(h.srv.Close)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return h
}

func (h *testHub) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.reqs
	h.reqs = nil
	return out
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// profile is the test model's profile, pinned to the served bytes.
func (h *testHub) profile(pinned bool) Profile {
	p := Profile{ID: "tiny-test", Kind: "onnx", HubID: "test/tiny", Revision: "r1", Dim: 16, Pooling: "mean", Normalize: true}
	for _, f := range []struct{ name, path string }{{"model.onnx", "onnx/model.onnx"}, {"tokenizer.json", "tokenizer.json"}} {
		mf := ModelFile{Name: f.name, Path: f.path}
		if pinned {
			mf.SHA256 = sum(h.files[f.path])
		}
		p.Files = append(p.Files, mf)
	}
	return p
}

// pullOpts pulls p from h; warnings are collected in warns.
func (h *testHub) pullOpts(p Profile, warns *[]string) PullOptions {
	return PullOptions{Profile: p, Hub: h.srv.URL + "/", UserAgent: "megagit/test", Now: time.Unix(1700000000, 0),
		Warn: func(msg string) { *warns = append(*warns, msg) }}
}

func pulledDir(t *testing.T, id string) string {
	t.Helper()
	d, err := ModelCacheDir(id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkInstalled asserts dest holds exactly the served files and a manifest.
func checkInstalled(t *testing.T, h *testHub, dest string, pinned bool) {
	t.Helper()
	for name, path := range map[string]string{"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"} {
		got, err := os.ReadFile(filepath.Join(dest, name))
		if err != nil || !bytes.Equal(got, h.files[path]) {
			t.Fatalf("%s: installed bytes differ (err %v)", name, err)
		}
	}
	var man pulled
	data, err := os.ReadFile(filepath.Join(dest, pullManifest))
	if err != nil || json.Unmarshal(data, &man) != nil || len(man.Files) != 2 {
		t.Fatalf("manifest: %v %s", err, data)
	}
	for _, f := range man.Files {
		if f.Pinned != pinned || f.SHA256 != sum(h.files[map[string]string{"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"}[f.Name]]) {
			t.Fatalf("manifest entry %+v", f)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dest), ".tiny-test.partial")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("staging folder left behind: %v", err)
	}
}

func TestPullPinned(t *testing.T) {
	h := newTestHub(t)
	var warns []string
	res, err := Pull(context.Background(), h.pullOpts(h.profile(true), &warns))
	if err != nil {
		t.Fatal(err)
	}
	dest := pulledDir(t, "tiny-test")
	if res != (PullResult{Dir: dest, Installed: true}) {
		t.Fatalf("result %+v, want %s installed", res, dest)
	}
	checkInstalled(t, h, dest, true)
	if got := h.requests(); len(got) != 2 {
		t.Fatalf("requests %v, want 2", got)
	}
	if h.agent != "megagit/test" || len(warns) != 0 {
		t.Fatalf("User-Agent %q, warnings %q", h.agent, warns)
	}
	// Again: installed, nothing downloaded.
	if res, err := Pull(context.Background(), h.pullOpts(h.profile(true), &warns)); err != nil || res != (PullResult{Dir: dest}) {
		t.Fatalf("second pull: %v, %+v", err, res)
	}
	if got := h.requests(); len(got) != 0 {
		t.Fatalf("second pull downloaded %v", got)
	}
	// Force replaces the install with a fresh copy.
	opts := h.pullOpts(h.profile(true), &warns)
	opts.Force = true
	os.WriteFile(filepath.Join(dest, "stray"), []byte("x"), 0o644)
	if _, err := Pull(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, h, dest, true)
	if _, err := os.Stat(filepath.Join(dest, "stray")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("Force kept the old folder's files")
	}
}

func TestPullChecksumMismatch(t *testing.T) {
	h := newTestHub(t)
	p := h.profile(true)
	p.Files[1].SHA256 = strings.Repeat("0", 64)
	dest := pulledDir(t, "tiny-test")
	var warns []string
	for _, existing := range []bool{false, true} {
		if existing { // an older good install must survive a failed pull untouched
			if _, err := Pull(context.Background(), h.pullOpts(h.profile(true), &warns)); err != nil {
				t.Fatal(err)
			}
		}
		opts := h.pullOpts(p, &warns)
		opts.Force = true
		_, err := Pull(context.Background(), opts)
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "tokenizer.json") {
			t.Fatalf("err = %v, want checksum mismatch on tokenizer.json", err)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dest), ".tiny-test.partial")); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("bad download left in the staging folder")
		}
		if existing {
			checkInstalled(t, h, dest, true)
		} else if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("failed pull installed a folder")
		}
	}
}

func TestPullResumes(t *testing.T) {
	h := newTestHub(t)
	dest := pulledDir(t, "tiny-test")
	staging := filepath.Join(filepath.Dir(dest), ".tiny-test.partial")
	model := h.files["onnx/model.onnx"]
	half := len(model) / 2
	os.MkdirAll(staging, 0o755)
	if err := os.WriteFile(filepath.Join(staging, "model.onnx"), model[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	var warns []string
	opts := h.pullOpts(h.profile(true), &warns)
	var told []string
	opts.Download = func(name string, have, total int64) io.Writer {
		told = append(told, fmt.Sprintf("%s %d/%d", name, have, total))
		return nil
	}
	if _, err := Pull(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, h, dest, true)
	got := h.requests()
	if len(got) != 2 || got[0] != "onnx/model.onnx bytes="+strconv.Itoa(half)+"-" {
		t.Fatalf("requests %v, want a Range request from byte %d", got, half)
	}
	tok := len(h.files["tokenizer.json"])
	if want := []string{fmt.Sprintf("model.onnx %d/%d", half, len(model)), fmt.Sprintf("tokenizer.json 0/%d", tok)}; !slices.Equal(told, want) {
		t.Fatalf("Download told %q, want %q", told, want)
	}
}

func TestPullRefusals(t *testing.T) {
	h := newTestHub(t)
	noFiles := h.profile(true)
	noFiles.Files = nil
	static := h.profile(true)
	static.Kind = "static"
	missing := h.profile(true)
	missing.Files[0].Path = "onnx/nope.onnx"
	tests := []struct {
		name    string
		prof    Profile
		want    error
		msg     string
		network bool
	}{
		{"unpinned", h.profile(false), ErrUnpinned, "model tiny-test has no pinned sha256", false},
		{"no download", noFiles, ErrNoDownload, "model tiny-test has no known download", false},
		{"static model", static, ErrNotDownloadable, "model tiny-test is static, not a downloadable ONNX model", false},
		{"404", missing, nil, "404", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warns []string
			_, err := Pull(context.Background(), h.pullOpts(tt.prof, &warns))
			if err == nil || !strings.Contains(err.Error(), tt.msg) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
			if n := len(h.requests()); (n > 0) != tt.network {
				t.Fatalf("%d requests", n)
			}
			if _, err := os.Stat(pulledDir(t, "tiny-test")); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("a refused pull installed a folder")
			}
		})
	}
}

func TestPullInsecureNoPin(t *testing.T) {
	h := newTestHub(t)
	var warns []string
	opts := h.pullOpts(h.profile(false), &warns)
	opts.InsecureNoPin = true
	if _, err := Pull(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, h, pulledDir(t, "tiny-test"), false)
	if !slices.Contains(warns, "tokenizer.json is not pinned; downloaded sha256 "+sum(h.files["tokenizer.json"])) {
		t.Fatalf("warnings lack the recorded digest: %q", warns)
	}
}

// tinyReference is the tiny model's reference (Profile.Reference), recorded
// from expected.json: the mean-pooled, normalised vectors of an independent
// float64 numpy forward pass of the same weights (scripts/make-tiny-onnx.py).
func tinyReference(t *testing.T) *Reference {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp tinyExpected
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	ref := &Reference{HeadTol: 0.02, CosineTol: 0.03}
	var vecs [][]float32
	for _, s := range exp.Sentences {
		ref.Sentences = append(ref.Sentences, s.Text)
		ref.Head = append(ref.Head, s.Mean[:8])
		vecs = append(vecs, s.Mean)
	}
	ref.Cosines = pairCosines(vecs)
	return ref
}

// referenceHub serves the tiny model (model, its bytes) with the real
// tokenizer.json, and returns the profile that pins the tokenizer by its
// sha256 and checks model.onnx by the tiny model's reference vectors.
func referenceHub(t *testing.T, model []byte) (*testHub, Profile) {
	t.Helper()
	h := newTestHub(t)
	tok, err := DefaultTokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	h.files["onnx/model.onnx"], h.files["tokenizer.json"] = model, tok
	p := tinyBERT("mean")
	p.ID, p.HubID, p.Revision, p.Reference = "tiny-test", "test/tiny", "r1", tinyReference(t)
	p.Files = []ModelFile{{Name: "model.onnx", Path: "onnx/model.onnx", ByReference: true},
		{Name: "tokenizer.json", Path: "tokenizer.json", SHA256: sum(tok), Size: int64(len(tok))}}
	return h, p
}

// tamperedTinyModel is the tiny model with two blocks of its word-embedding
// table swapped, as a tampered or corrupted download might be: the file
// still parses and every weight is still a real float16 (the blocks are
// whole rows long, so each byte keeps its place within its value), but
// most words' vectors now belong to others.
func tamperedTinyModel(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	// The table (30522 rows of 16 float16s, 977 kB) is the file's first
	// initializer and fills most of it; ids 4,000 to 20,000 lie in here.
	n := 32 * 8192
	a := len(b) / 8
	x, y := slices.Clone(b[a:a+n]), slices.Clone(b[a+n:a+2*n])
	copy(b[a:], y)
	copy(b[a+n:], x)
	return b
}

// TestPullChecksByReference: a model file without a digest is checked by
// embedding the profile's reference sentences with it. The real model
// passes and is installed, marked checked; a tampered copy and a model of
// another size (the tiny model offered as all-minilm-l6-v2) are refused,
// deleted, and nothing is installed.
func TestPullChecksByReference(t *testing.T) {
	_, lib := onnxTestEnv(t)
	model, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	h, p := referenceHub(t, model)
	var warns []string
	opts := h.pullOpts(p, &warns)
	opts.Runtime = lib
	if _, err := Pull(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	dest := pulledDir(t, "tiny-test")
	var man pulled
	data, _ := os.ReadFile(filepath.Join(dest, pullManifest))
	if err := json.Unmarshal(data, &man); err != nil || !man.Files[0].Checked || man.Files[1].Checked || len(warns) != 0 {
		t.Fatalf("manifest %s, warnings %q: want model.onnx checked, nothing warned", data, warns)
	}

	minilm, _ := ProfileFor("all-minilm-l6-v2")
	minilm.HubID, minilm.Revision = "test/tiny", "r1"
	minilm.Files = slices.Clone(minilm.Files)
	minilm.Files[1].SHA256, minilm.Files[1].Size = sum(h.files["tokenizer.json"]), 0 // the hub's tokenizer is not in the tests
	for name, tc := range map[string]struct {
		model []byte
		prof  Profile
		msg   string
	}{
		"tampered":      {tamperedTinyModel(t), p, "model.onnx is not tiny-test: model does not behave as its profile records: "},
		"another model": {model, minilm, "model.onnx is not all-minilm-l6-v2: it gives 16-dimensional vectors, not 384"},
	} {
		t.Run(name, func(t *testing.T) {
			h.files["onnx/model.onnx"] = tc.model
			opts := h.pullOpts(tc.prof, &warns)
			opts.Runtime, opts.Force = lib, true
			_, err := Pull(context.Background(), opts)
			if !errors.Is(err, ErrBehaviour) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want ErrBehaviour containing %q", err, tc.msg)
			}
			d := pulledDir(t, tc.prof.ID)
			if _, err := os.Stat(filepath.Join(filepath.Dir(d), "."+tc.prof.ID+".partial")); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("the refused download was kept")
			}
			if tc.prof.ID == "tiny-test" {
				got, _ := os.ReadFile(filepath.Join(d, "model.onnx"))
				if !bytes.Equal(got, model) {
					t.Fatal("the refused pull replaced the checked install")
				}
			} else if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("a refused pull installed a folder")
			}
		})
	}
}

// TestPullCannotCheck: where the reference check cannot run (no ONNX
// Runtime, or no ONNX support in this build), pull refuses before
// downloading anything; --insecure-no-pin installs the model unchecked,
// with a warning, and a later pull without it does not take that install
// for a checked one.
func TestPullCannotCheck(t *testing.T) {
	model, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	h, p := referenceHub(t, model)
	var warns []string
	opts := h.pullOpts(p, &warns)
	opts.Runtime = filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	refused := func() {
		t.Helper()
		_, err := Pull(context.Background(), opts)
		if !errors.Is(err, ErrCannotCheck) || !errors.Is(err, ErrNoRuntime) ||
			!strings.Contains(err.Error(), "model tiny-test: it is checked by running it on reference sentences, which needs ONNX Runtime: ") {
			t.Fatalf("err = %v, want ErrCannotCheck", err)
		}
		if got := h.requests(); len(got) != 0 {
			t.Fatalf("a pull that cannot check downloaded %v", got)
		}
	}
	refused()
	if _, err := os.Stat(pulledDir(t, "tiny-test")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused pull installed a folder")
	}
	insecure := opts
	insecure.InsecureNoPin = true
	if _, err := Pull(context.Background(), insecure); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "tiny-test will not be checked") || !strings.HasPrefix(warns[1], "model.onnx is not pinned; downloaded sha256 ") {
		t.Fatalf("warnings %q", warns)
	}
	h.requests()
	refused()
}
