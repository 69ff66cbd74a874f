package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
)

// testHub serves a tiny model folder in the hub layout and records the
// requests it saw.
type testHub struct {
	files map[string][]byte // path under /test/tiny/resolve/r1/
	mu    sync.Mutex
	reqs  []string // "path range"
	srv   *httptest.Server
}

func newTestHub(t *testing.T) *testHub {
	t.Helper()
	model, err := os.ReadFile(filepath.Join("..", "..", "embedcache", "testdata", "tiny-bert", "model.onnx"))
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
		h.mu.Unlock()
		data, found := h.files[p]
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(data)) // honours Range
	}))
	t.Cleanup(h.srv.Close)
	t.Setenv("MEGAGIT_MODEL_HUB", h.srv.URL)
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
func (h *testHub) profile(pinned bool) embedcache.Profile {
	p := embedcache.Profile{ID: "tiny-test", Kind: "onnx", HubID: "test/tiny", Revision: "r1", Dim: 16, Pooling: "mean", Normalize: true}
	for _, f := range []struct{ name, path string }{{"model.onnx", "onnx/model.onnx"}, {"tokenizer.json", "tokenizer.json"}} {
		mf := embedcache.ModelFile{Name: f.name, Path: f.path}
		if pinned {
			mf.SHA256 = sum(h.files[f.path])
		}
		p.Files = append(p.Files, mf)
	}
	return p
}

func pullOpts(p embedcache.Profile) (*modelPullOptions, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	a := &app{out: &out, errOut: &errOut, now: func() time.Time { return time.Unix(1700000000, 0) }}
	return &modelPullOptions{app: a, id: p.ID, lookup: func(id string) (embedcache.Profile, bool) {
		return p, id == p.ID
	}}, &out, &errOut
}

func pulledDir(t *testing.T, id string) string {
	t.Helper()
	d, err := embedcache.ModelCacheDir(id)
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

func TestModelPullPinned(t *testing.T) {
	h := newTestHub(t)
	opts, out, _ := pullOpts(h.profile(true))
	if err := modelPullRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	dest := pulledDir(t, "tiny-test")
	if strings.TrimSpace(out.String()) != dest {
		t.Fatalf("stdout %q, want %s", out, dest)
	}
	checkInstalled(t, h, dest, true)
	if got := h.requests(); len(got) != 2 {
		t.Fatalf("requests %v, want 2", got)
	}
	// Again: installed, nothing downloaded.
	opts, _, errOut := pullOpts(h.profile(true))
	if err := modelPullRun(context.Background(), opts); err != nil || !strings.Contains(errOut.String(), "already installed") {
		t.Fatalf("second pull: %v, %s", err, errOut)
	}
	if got := h.requests(); len(got) != 0 {
		t.Fatalf("second pull downloaded %v", got)
	}
	// --force replaces the install with a fresh copy.
	opts, _, _ = pullOpts(h.profile(true))
	opts.force = true
	os.WriteFile(filepath.Join(dest, "stray"), []byte("x"), 0o644)
	if err := modelPullRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, h, dest, true)
	if _, err := os.Stat(filepath.Join(dest, "stray")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("--force kept the old folder's files")
	}
}

func TestModelPullChecksumMismatch(t *testing.T) {
	h := newTestHub(t)
	p := h.profile(true)
	p.Files[1].SHA256 = strings.Repeat("0", 64)
	dest := pulledDir(t, "tiny-test")
	for _, existing := range []bool{false, true} {
		if existing { // an older good install must survive a failed pull untouched
			good, _, _ := pullOpts(h.profile(true))
			if err := modelPullRun(context.Background(), good); err != nil {
				t.Fatal(err)
			}
		}
		opts, _, _ := pullOpts(p)
		opts.force = true
		err := modelPullRun(context.Background(), opts)
		if !errors.Is(err, errChecksum) || !strings.Contains(err.Error(), "tokenizer.json") {
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

func TestModelPullResumes(t *testing.T) {
	h := newTestHub(t)
	dest := pulledDir(t, "tiny-test")
	staging := filepath.Join(filepath.Dir(dest), ".tiny-test.partial")
	model := h.files["onnx/model.onnx"]
	half := len(model) / 2
	os.MkdirAll(staging, 0o755)
	if err := os.WriteFile(filepath.Join(staging, "model.onnx"), model[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	opts, _, _ := pullOpts(h.profile(true))
	if err := modelPullRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, h, dest, true)
	got := h.requests()
	if len(got) != 2 || got[0] != "onnx/model.onnx bytes="+strconv.Itoa(half)+"-" {
		t.Fatalf("requests %v, want a Range request from byte %d", got, half)
	}
}

func TestModelPullRefusals(t *testing.T) {
	h := newTestHub(t)
	noFiles := h.profile(true)
	noFiles.Files = nil
	static := h.profile(true)
	static.Kind = "static"
	missing := h.profile(true)
	missing.Files[0].Path = "onnx/nope.onnx"
	tests := []struct {
		name    string
		prof    embedcache.Profile
		id      string
		want    error
		msg     string
		hint    string
		network bool
	}{
		{"unknown id", h.profile(true), "nope", config.ErrInvalid, `unknown model "nope"`, "model list", false},
		{"unpinned", h.profile(false), "tiny-test", config.ErrInvalid, "no pinned sha256", "--insecure-no-pin", false},
		{"no download", noFiles, "tiny-test", config.ErrInvalid, "no known download", "model use --dir", false},
		{"static model", static, "tiny-test", config.ErrInvalid, "not a downloadable ONNX model", "", false},
		{"404", missing, "tiny-test", nil, "404", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, _, _ := pullOpts(tt.prof)
			opts.id = tt.id
			err := modelPullRun(context.Background(), opts)
			if err == nil || !strings.Contains(err.Error(), tt.msg) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
			var he hintError
			if tt.hint != "" && (!errors.As(err, &he) || !strings.Contains(strings.Join(he.hints, " "), tt.hint)) {
				t.Fatalf("hints of %v lack %q", err, tt.hint)
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

func TestModelPullInsecureNoPin(t *testing.T) {
	h := newTestHub(t)
	opts, _, errOut := pullOpts(h.profile(false))
	opts.insecureNoPin = true
	if err := modelPullRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, h, pulledDir(t, "tiny-test"), false)
	if !strings.Contains(errOut.String(), "not pinned; downloaded sha256 "+sum(h.files["tokenizer.json"])) {
		t.Fatalf("stderr lacks the recorded digest:\n%s", errOut)
	}
}

// TestModelPullCommand checks the wiring: flags and the real profiles (none
// of which is pinned yet).
func TestModelPullCommand(t *testing.T) {
	newTestHub(t)
	var out, errOut bytes.Buffer
	if code := run([]string{"model", "pull", "bge-m3"}, strings.NewReader(""), &out, &errOut); code != exitInvalid ||
		!strings.Contains(errOut.String(), "model use --dir") {
		t.Fatalf("bge-m3: exit %d, stderr %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"model", "pull", "all-minilm-l6-v2"}, strings.NewReader(""), &out, &errOut); code != exitInvalid ||
		!strings.Contains(errOut.String(), "--insecure-no-pin") {
		t.Fatalf("all-minilm-l6-v2: exit %d, stderr %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"model", "pull"}, strings.NewReader(""), &out, &errOut); code != exitUsage {
		t.Fatalf("no id: exit %d, stderr %s", code, errOut.String())
	}
}
