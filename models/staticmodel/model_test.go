package staticmodel

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestBuiltinEmbedGolden: the built-in model's Embed gives, bit for bit,
// the vectors (and the ids) it gave when testdata/embed_golden.json was
// written: a change to tokenisation or pooling would silently move every
// committed cache's vectors away from the prompts'.
func TestBuiltinEmbedGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "embed_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Text string    `json:"text"`
		IDs  []int32   `json:"ids"`
		Vec  []float32 `json:"vec"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	m, err := BuiltinModel(BuiltinID)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != BuiltinID || m.Dim() != 256 || m.VocabSize() != 30522 || m.Fingerprint() != m.Meta().Created || m.Fingerprint() == "" {
		t.Fatalf("id %s dim %d vocab %d fingerprint %q", m.ID(), m.Dim(), m.VocabSize(), m.Fingerprint())
	}
	for _, g := range golden {
		if ids := m.IDs(g.Text); len(ids) != len(g.IDs) || (len(ids) > 0 && !equal(ids, g.IDs)) {
			t.Errorf("IDs(%q) = %v, want %v", g.Text, ids, g.IDs)
		}
		v := m.Embed(g.Text)
		if len(v) != len(g.Vec) {
			t.Fatalf("Embed(%q): %d values, want %d", g.Text, len(v), len(g.Vec))
		}
		for i := range v {
			if math.Float32bits(v[i]) != math.Float32bits(g.Vec[i]) {
				t.Fatalf("Embed(%q)[%d] = %g, want %g", g.Text, i, v[i], g.Vec[i])
			}
		}
	}
}

func equal(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestNoNetwork: the hook links this package, so it must not link net,
// net/http or sugarme's tokenizer root package (which imports net/http).
func TestNoNetwork(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/megagit/megagit/models/staticmodel") {
		t.Fatalf("go list -deps printed %d packages", len(deps))
	}
	for _, d := range deps {
		if d == "net" || strings.HasPrefix(d, "net/") || d == "github.com/sugarme/tokenizer" ||
			strings.HasPrefix(d, "github.com/megagit/megagit/") && d != "github.com/megagit/megagit/models/staticmodel" {
			t.Errorf("staticmodel links %s", d)
		}
	}
}

func TestParseCompactMalformed(t *testing.T) {
	for _, data := range []string{
		"", "junk", compactMagic,
		defaultCompact[:len(defaultCompact)/2],
		defaultCompact + "\x00",
	} {
		if _, err := ParseCompact(data); err == nil {
			t.Errorf("ParseCompact(%d bytes) accepted a damaged form", len(data))
		}
	}
}

func TestVocabMalformed(t *testing.T) {
	for _, c := range []struct {
		list  string
		count int
	}{
		{"\x01a\x01a", 2},  // a token twice
		{"\x01a\x01b", 1},  // trailing bytes
		{"\x01a\x05b", 2},  // a length past the end
		{"\x01a", 2},       // too few tokens
		{"\x01a\x01b", -1}, // a negative count
	} {
		if _, err := newVocab(c.list, c.count); err == nil {
			t.Errorf("newVocab(%q, %d) accepted it", c.list, c.count)
		}
	}
	v, err := newVocab("\x00\x01a\x02##", 3)
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]int{"": 0, "a": 1, "##": 2} {
		if id, ok := v.ID(tok); !ok || id != want {
			t.Errorf("ID(%q) = %d, %v; want %d", tok, id, ok, want)
		}
	}
}

func TestWordPiece(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	v := tok.Vocab()
	for _, c := range []struct {
		word string
		want []string
	}{
		{"unaffable", []string{"una", "##ffa", "##ble"}}, // greedy, not the best split
		{"hello", []string{"hello"}},
		{strings.Repeat("a", 101), nil},
		{"\u2603\u2603", nil},
	} {
		pieces, ok := v.WordPiece(nil, c.word, "##", 100)
		if ok != (c.want != nil) || len(pieces) != len(c.want) {
			t.Fatalf("WordPiece(%q) = %v, %v", c.word, pieces, ok)
		}
		for i, p := range pieces {
			if got, _ := v.Token(p.ID); got != c.want[i] {
				t.Errorf("WordPiece(%q) piece %d = %q, want %q", c.word, i, got, c.want[i])
			}
		}
	}
}

// TestLoadErrors: a model folder's mistakes are reported with the file
// and the field.
func TestLoadErrors(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	meta := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	good := `{"id":"m","dim":2,"vocab_size":30522,"dtype":"float32","tokenizer_sha256":"` + tok.SHA256() + `"}`
	for name, c := range map[string]struct {
		fs   fstest.MapFS
		want string
	}{
		"no model.json":  {fstest.MapFS{}, "model.json"},
		"bad json":       {fstest.MapFS{"m/model.json": meta("{")}, "model.json"},
		"empty id":       {fstest.MapFS{"m/model.json": meta(`{"dim":2}`)}, "field id is empty"},
		"bad dtype":      {fstest.MapFS{"m/model.json": meta(`{"id":"m","dim":2,"dtype":"f64"}`)}, "field dtype"},
		"vocab":          {fstest.MapFS{"m/model.json": meta(`{"id":"m","dim":2,"dtype":"int8","vocab_size":3}`)}, "field vocab_size"},
		"no vectors.npy": {fstest.MapFS{"m/model.json": meta(good)}, "vectors.npy"},
		"bad vectors":    {fstest.MapFS{"m/model.json": meta(good), "m/vectors.npy": meta("junk")}, "vectors.npy: npy"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(c.fs, "m")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want an error naming %q", err, c.want)
			}
		})
	}
	for _, id := range BuiltinIDs() {
		if m, err := BuiltinModel(id); err != nil || m.ID() != id {
			t.Fatalf("built-in model %s: %v", id, err)
		}
	}
	if _, err := BuiltinModel("megagit-static-v0"); err == nil || errors.Is(err, ErrNoBuiltin) || !strings.Contains(err.Error(), BuiltinID) {
		t.Fatalf("an unknown id: %v, want an error naming the built-in models", err)
	}
}

// BenchmarkOpenTokenizer is what every process that embeds a prompt pays
// to open the built-in tokeniser (lab/NOTEBOOK.md, "Opening the tokeniser").
func BenchmarkOpenTokenizer(b *testing.B) {
	for b.Loop() {
		if _, err := ParseCompact(defaultCompact); err != nil {
			b.Fatal(err)
		}
	}
}
