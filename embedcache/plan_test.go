package embedcache

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/models"
)

// sizeEmbedder records the size of every Embed call.
type sizeEmbedder struct{ calls []int }

func (e *sizeEmbedder) ID() string { return "sizes" }
func (e *sizeEmbedder) Dim() int   { return 2 }
func (e *sizeEmbedder) Embed(texts []string, _ models.Kind) ([][]float32, error) {
	e.calls = append(e.calls, len(texts))
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

func TestPlanComputesInChunks(t *testing.T) {
	items := make([]DocText, 150)
	for i := range items {
		items[i] = DocText{Skill: "s", Field: "f", Text: strings.Repeat("x", i+1)}
	}
	e := &sizeEmbedder{}
	p, err := NewPlan(e, t.TempDir(), items, false, func(s string) { t.Fatal(s) })
	if err != nil || p.Todo() != 150 {
		t.Fatalf("plan: %v, %d to compute", err, p.Todo())
	}
	// One skill's 150 texts (its contexts are texts too) are one skill.
	if p.Skills() != 1 {
		t.Errorf("Skills() = %d, want 1", p.Skills())
	}
	var done []int
	if err := p.Compute(func(n int) { done = append(done, n) }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.calls, []int{64, 64, 22}) || !reflect.DeepEqual(done, []int{64, 128, 150}) {
		t.Fatalf("calls %v, progress %v", e.calls, done)
	}
	for i, v := range p.vecs {
		if len(v) != 2 {
			t.Fatalf("text %d has no vector", i)
		}
	}
}

// skillTexts are the two texts routing embeds per skill.
func skillTexts(skills ...string) []DocText {
	var out []DocText
	for _, s := range skills {
		out = append(out, DocText{Skill: s, Field: "full", Text: s + ": does " + s}, DocText{Skill: s, Field: "name", Text: s})
	}
	return out
}

// embedInto runs a plan over root and writes its files where a commit
// would put them; it returns the plan's summary.
func embedInto(t *testing.T, e models.Embedder, root string, items []DocText, all bool) (string, []string) {
	t.Helper()
	var warns []string
	p, err := NewPlan(e, root, items, all, func(s string) { warns = append(warns, s) })
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Compute(func(int) {}); err != nil {
		t.Fatal(err)
	}
	files, err := p.Files(false)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if !strings.HasPrefix(name, ".megagit/embeddings/") {
			t.Fatalf("file %s outside the committed cache", name)
		}
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(path, data); err != nil {
			t.Fatal(err)
		}
	}
	return p.Summary(), warns
}

func TestPlanReusesCachedVectors(t *testing.T) {
	root := t.TempDir()
	e := &countingEmbedder{dim: 8}
	tests := []struct {
		name    string
		e       models.Embedder
		skills  []string
		all     bool
		summary string
		warn    string
	}{
		{"first embed", e, []string{"a", "b"}, false, "embedded 2, kept 0 skills with fake-model (4 of 4 texts computed)", ""},
		{"unchanged", e, []string{"a", "b"}, false, "embedded 0, kept 2 skills with fake-model (0 of 4 texts computed)", ""},
		{"one added, one deleted", e, []string{"a", "c"}, false,
			"embedded 1, kept 1 skills with fake-model (2 of 4 texts computed, 1 deleted skill(s) dropped)", ""},
		{"all", e, []string{"a", "c"}, true, "embedded 2, kept 0 skills with fake-model (4 of 4 texts computed)", ""},
		{"another build of the model", &rebuiltEmbedder{countingEmbedder{dim: 8}}, []string{"a", "c"}, false,
			"embedded 2, kept 0 skills with fake-model (4 of 4 texts computed, all recomputed: anchor cosine",
			"was written by another build of fake-model"},
	}
	for _, tt := range tests {
		summary, warns := embedInto(t, tt.e, root, skillTexts(tt.skills...), tt.all)
		if !strings.HasPrefix(summary, tt.summary) {
			t.Errorf("%s: summary %q, want %q", tt.name, summary, tt.summary)
		}
		if got := strings.Join(warns, "\n"); (tt.warn == "") != (got == "") || !strings.Contains(got, tt.warn) {
			t.Errorf("%s: warnings %q, want %q", tt.name, got, tt.warn)
		}
	}
	ins := Inspect(CacheDir(root, e.ID()))
	if ins.Err != nil || ins.Anchor == nil || len(ins.Rows) != 5 || ins.Rows[0].Skill != AnchorSkill {
		t.Fatalf("cache after the plans: %+v", ins)
	}
}

// A cache written before anchors keeps its rows and gets an anchor.
func TestPlanAddsAnchor(t *testing.T) {
	root := t.TempDir()
	e := &countingEmbedder{dim: 8}
	c := OpenCache(CacheDir(root, e.ID()), CacheKey(e), e.Dim(), nil)
	items := skillTexts("a")
	if _, err := EmbedDocs(e, c, items); err != nil {
		t.Fatal(err)
	}
	c.Retain(func(skill, _, _ string) bool { return skill != AnchorSkill })
	if err := c.Save(false); err != nil {
		t.Fatal(err)
	}
	summary, _ := embedInto(t, e, root, items, false)
	if want := "embedded 0, kept 1 skills with fake-model (0 of 2 texts computed, drift anchor added)"; summary != want {
		t.Fatalf("summary %q, want %q", summary, want)
	}
	if ins := Inspect(CacheDir(root, e.ID())); ins.Anchor == nil {
		t.Fatal("no anchor added")
	}
}
