package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
)

// TestModelPullRun checks what the command says around models.Pull
// (whose downloads embedcache's tests cover): the folder on stdout, the
// status lines and an unpinned file's digest on stderr.
func TestModelPullRun(t *testing.T) {
	hub := t.TempDir()
	files := map[string]string{"onnx/model.onnx": "not really onnx", "tokenizer.json": `{"model":{"type":"WordPiece"}}`}
	prof := models.Profile{ID: "tiny-test", Kind: "onnx", HubID: "test/tiny", Revision: "r1"}
	for path, data := range files {
		os.MkdirAll(filepath.Join(hub, "test", "tiny", "resolve", "r1", filepath.Dir(path)), 0o755)
		if err := os.WriteFile(filepath.Join(hub, "test", "tiny", "resolve", "r1", path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		mf := models.ModelFile{Name: filepath.Base(path), Path: path}
		if path != "tokenizer.json" {
			s := sha256.Sum256([]byte(data))
			mf.SHA256 = hex.EncodeToString(s[:])
		}
		prof.Files = append(prof.Files, mf)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(hub)))
	t.Cleanup(srv.Close)
	t.Setenv("MEGAGIT_MODEL_HUB", srv.URL)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dest, err := models.ModelCacheDir(prof.ID)
	if err != nil {
		t.Fatal(err)
	}
	pull := func(insecure bool) (string, string, error) {
		var out, errOut bytes.Buffer
		a := &app{out: &out, errOut: &errOut, now: func() time.Time { return time.Unix(1700000000, 0) }}
		err := modelPullRun(&modelPullOptions{app: a, id: prof.ID, insecureNoPin: insecure,
			lookup: func(id string) (models.Profile, bool) { return prof, id == prof.ID }})
		return out.String(), errOut.String(), err
	}
	_, stderr, err := pull(false)
	var he hintError
	if !errors.Is(err, config.ErrInvalid) || !errors.As(err, &he) || !strings.Contains(strings.Join(he.hints, " "), "--insecure-no-pin") {
		t.Fatalf("unpinned pull: %v (%s)", err, stderr)
	}
	stdout, stderr, err := pull(true)
	if err != nil || stdout != dest+"\n" {
		t.Fatalf("pull: %v, stdout %q, want %s", err, stdout, dest)
	}
	for _, want := range []string{"megagit: downloading model.onnx (15 bytes)\n",
		"megagit: warning: tokenizer.json is not pinned; downloaded sha256 ",
		"megagit: installed tiny-test; `megagit model use tiny-test` routes with it\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if stdout, stderr, err := pull(true); err != nil || stdout != dest+"\n" || stderr != "megagit: tiny-test is already installed\n" {
		t.Fatalf("second pull: %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	var out bytes.Buffer
	a := &app{out: &out, errOut: &bytes.Buffer{}, now: time.Now}
	if err := modelPullRun(&modelPullOptions{app: a, id: prof.ID, insecureNoPin: true, json: true,
		lookup: func(id string) (models.Profile, bool) { return prof, id == prof.ID }}); err != nil {
		t.Fatal(err)
	}
	checkOneJSON(t, "model pull", out.Bytes(), []string{"id", "dir", "installed"}, false)
	if !strings.Contains(out.String(), `"installed": false`) || !strings.Contains(out.String(), `"dir": "`+dest+`"`) {
		t.Errorf("model pull --json of an installed model:\n%s", out.String())
	}
}

// TestModelPullCommand checks the wiring: flags and the real profiles
// (all-minilm-l6-v2 and all-mpnet-base-v2 are pinned, their model checked
// by running it, which cannot be done without ONNX Runtime; bge-small-en-v1.5
// is not pinned).
func TestModelPullCommand(t *testing.T) {
	t.Setenv("MEGAGIT_MODEL_HUB", "http://127.0.0.1:1") // every case is refused before any download
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("MEGAGIT_ONNXRUNTIME_LIB", filepath.Join(t.TempDir(), "libonnxruntime.so.1"))
	cannotCheck := "hint: install ONNX Runtime with scripts/install-onnxruntime.sh"
	if !models.ONNXSupported {
		cannotCheck = "hint: pull it with a megagit built with cgo"
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bge-m3"}, exitInvalid, "model use --dir"},
		{[]string{"bge-small-en-v1.5"}, exitInvalid, "--insecure-no-pin"},
		{[]string{"all-minilm-l6-v2"}, exitInvalid, "error: config: model all-minilm-l6-v2: it is checked by running it on reference sentences, which needs ONNX Runtime: "},
		{[]string{"all-minilm-l6-v2"}, exitInvalid, cannotCheck},
		{[]string{"all-mpnet-base-v2"}, exitInvalid, cannotCheck},
		{[]string{"nope"}, exitInvalid, "hint: run `megagit model list` to see the known models"},
		{[]string{models.BuiltinID}, exitInvalid, "model megagit-static-v3 is static, not a downloadable ONNX model"},
		{[]string{"megagit-static-v2"}, exitInvalid, "megagit-static-v2 is no longer built into megagit"},
		{[]string{"megagit-static-v1"}, exitInvalid, "hint: megagit ships one built-in model, nothing to download: megagit model use megagit-static-v3"},
		{nil, exitUsage, ""},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"model", "pull"}, tc.args...), strings.NewReader(""), &out, &errOut); code != tc.code ||
			!strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("model pull %q: exit %d, stderr %s", tc.args, code, errOut.String())
		}
	}
}

// TestModelPullChecksTheModel: `megagit model pull` checks a model whose
// digest is not pinned by running it, with the ONNX Runtime library of the
// user's settings (MEGAGIT_ONNXRUNTIME_LIB here): the model its profile's
// reference was recorded from is installed, another is refused and
// nothing is installed.
func TestModelPullChecksTheModel(t *testing.T) {
	if ok, err := onnxAvailable(); err != nil || !ok {
		if err != nil {
			t.Fatal(err)
		}
		t.Skip("no ONNX Runtime, or no ONNX support in this build")
	}
	model, err := os.ReadFile(filepath.Join("..", "..", "models", "testdata", "tiny-bert", models.ONNXModelFile))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := models.DefaultTokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	hub := t.TempDir()
	files := filepath.Join(hub, "test", "tiny", "resolve", "r1")
	os.MkdirAll(filepath.Join(files, "onnx"), 0o755)
	os.WriteFile(filepath.Join(files, "onnx", "model.onnx"), model, 0o644)
	os.WriteFile(filepath.Join(files, "tokenizer.json"), tok, 0o644)
	srv := httptest.NewServer(http.FileServer(http.Dir(hub)))
	t.Cleanup(srv.Close)
	t.Setenv("MEGAGIT_MODEL_HUB", srv.URL)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	// The reference: the tiny model's own vectors, recorded from the
	// repository's copy before the download.
	prof := models.Profile{ID: "tiny-test", Kind: "onnx", HubID: "test/tiny", Revision: "r1", Dim: 16, Pooling: "mean", Normalize: true,
		Inputs: []string{"input_ids", "attention_mask", "token_type_ids"},
		Files: []models.ModelFile{{Name: "model.onnx", Path: "onnx/model.onnx", ByReference: true},
			{Name: "tokenizer.json", Path: "tokenizer.json", SHA256: fmt.Sprintf("%x", sha256.Sum256(tok))}}}
	local := t.TempDir()
	os.WriteFile(filepath.Join(local, "model.onnx"), model, 0o644)
	os.WriteFile(filepath.Join(local, "tokenizer.json"), tok, 0o644)
	emb, err := models.NewONNX(local, prof, onnxRuntimeLib())
	if err != nil {
		t.Fatal(err)
	}
	ref, err := models.NewReference(emb, []string{"hello world", "validate the webhook signature", "a sunny afternoon"}, 8, 0.02, 0.03)
	if err != nil {
		t.Fatal(err)
	}
	dest, _ := models.ModelCacheDir(prof.ID)
	pull := func(p models.Profile) (string, error) {
		var out, errOut bytes.Buffer
		a := &app{out: &out, errOut: &errOut, now: time.Now}
		err := modelPullRun(&modelPullOptions{app: a, id: p.ID, lookup: func(string) (models.Profile, bool) { return p, true }})
		return errOut.String(), err
	}
	// Another model's reference: the same sentences, other vectors.
	other := ref
	other.Head = [][]float32{ref.Head[1], ref.Head[2], ref.Head[0]}
	wrong := prof
	wrong.Reference = &other
	if stderr, err := pull(wrong); err == nil || !strings.Contains(err.Error(), "pull tiny-test: model.onnx is not tiny-test: model does not behave as its profile records: component ") {
		t.Fatalf("pull of a model unlike its reference: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused model was installed")
	}
	prof.Reference = &ref
	if stderr, err := pull(prof); err != nil || !strings.Contains(stderr, "megagit: installed tiny-test") || strings.Contains(stderr, "warning") {
		t.Fatalf("pull of the reference's model: %v\n%s", err, stderr)
	}
}
