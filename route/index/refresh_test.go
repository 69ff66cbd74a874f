package index

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
)

// fakeSkills is a registry folder of SKILL.md files whose documents are
// their folder names and contents, read by a Source that counts its work.
type fakeSkills struct {
	t        *testing.T
	root     string
	dir      local.Dir
	parsed   int      // documents read by Docs or Update
	embedded []string // ids of the documents Vectors was asked for
	embedErr error
}

func newFakeSkills(t *testing.T, names ...string) *fakeSkills {
	f := &fakeSkills{t: t, root: t.TempDir()}
	f.dir = local.Open(f.root, time.Second)
	for _, n := range names {
		f.write(n, "about "+n)
	}
	return f
}

func (f *fakeSkills) write(name, desc string) {
	f.t.Helper()
	p := filepath.Join(f.root, "skills", name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(desc), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeSkills) doc(name string) ranker.Doc {
	b, err := os.ReadFile(filepath.Join(f.root, "skills", name, "SKILL.md"))
	if err != nil {
		f.t.Fatal(err)
	}
	f.parsed++
	return ranker.Doc{ID: name, Path: "skills/" + name + "/SKILL.md", Description: string(b), Body: "body of " + string(b), Weight: 1}
}

func (f *fakeSkills) source() Source {
	return Source{
		Docs: func() ([]ranker.Doc, error) {
			ents, err := os.ReadDir(filepath.Join(f.root, "skills"))
			if err != nil {
				return nil, err
			}
			var docs []ranker.Doc
			for _, e := range ents {
				docs = append(docs, f.doc(e.Name()))
			}
			return docs, nil
		},
		Update: func(old Compiled, _ string, changed []string) ([]ranker.Doc, bool) {
			docs := slices.Clone(old.Docs)
			for _, p := range changed {
				i := slices.IndexFunc(docs, func(d ranker.Doc) bool { return d.Path == p })
				if i < 0 {
					return nil, false
				}
				docs[i] = f.doc(docs[i].ID)
			}
			return docs, true
		},
		VecKey: "model@1",
		Vectors: func(docs []ranker.Doc) (*Vectors, error) {
			if f.embedErr != nil {
				return nil, f.embedErr
			}
			v := &Vectors{Key: "model@1", Dim: 2}
			for _, d := range docs {
				f.embedded = append(f.embedded, d.ID)
				x := float32(len(d.Description))
				v.Rows = append(v.Rows, 1, x, x, 1)
			}
			return v, nil
		},
	}
}

func (f *fakeSkills) refresh() (Compiled, error) {
	f.t.Helper()
	c, vecErr, err := Refresh(f.dir, f.root, []string{"skills"}, ranker.DefaultConfig(), f.source())
	if err != nil {
		f.t.Fatal(err)
	}
	return c, vecErr
}

// A refresh after one skill changed reads and embeds that skill only, and
// keeps the other skills' vectors as they were.
func TestRefreshRereadsOnlyWhatChanged(t *testing.T) {
	f := newFakeSkills(t, "alpha", "beta", "gamma")
	first, _ := f.refresh()
	if f.parsed != 3 || len(f.embedded) != 3 {
		t.Fatalf("first build: %d parsed, %v embedded; want all 3", f.parsed, f.embedded)
	}
	f.parsed, f.embedded = 0, nil
	if _, _ = f.refresh(); f.parsed != 0 || f.embedded != nil {
		t.Fatalf("nothing changed: %d parsed, %v embedded", f.parsed, f.embedded)
	}
	time.Sleep(10 * time.Millisecond)
	f.write("beta", "about beta, longer now")
	c, _ := f.refresh()
	if f.parsed != 1 || !slices.Equal(f.embedded, []string{"beta"}) {
		t.Fatalf("beta edited: %d parsed, %v embedded; want beta alone", f.parsed, f.embedded)
	}
	if c.Docs[1].Description != "about beta, longer now" {
		t.Fatalf("beta's document was not re-read: %q", c.Docs[1].Description)
	}
	for _, d := range []int{0, 2} {
		if !slices.Equal(c.Vectors.Rows[4*d:4*d+4], first.Vectors.Rows[4*d:4*d+4]) {
			t.Errorf("doc %d's vectors changed though its text did not", d)
		}
	}
	if slices.Equal(c.Vectors.Rows[4:8], first.Vectors.Rows[4:8]) {
		t.Error("beta's vectors were kept though its description changed")
	}
	// The body terms are kept with the documents, the changed one's new.
	stored, ok := ReadCompiled(f.dir, RankerKey(ranker.DefaultConfig()), Want{Bodies: true})
	if !ok {
		t.Fatal("the compiled index does not read back")
	}
	stored.keptBodyTerms()
	for i, d := range stored.Docs {
		if len(d.BodyTerms) == 0 || !slices.Equal(d.BodyTerms, c.Docs[i].BodyTerms) {
			t.Errorf("%s: stored body terms %v, built with %v", d.ID, d.BodyTerms, c.Docs[i].BodyTerms)
		}
	}
	if !slices.Contains(stored.Docs[1].BodyTerms, ranker.TermCount{Term: "longer", N: 1}) {
		t.Errorf("beta's body terms %v miss its new word", stored.Docs[1].BodyTerms)
	}
	if !slices.Equal(stored.Docs[0].BodyTerms, first.Docs[0].BodyTerms) {
		t.Errorf("alpha's body terms changed: %v, then %v", first.Docs[0].BodyTerms, stored.Docs[0].BodyTerms)
	}
}

// An embedding that keeps failing leaves routing lexical, says why each
// time, and does not rewrite an index that has nothing new.
func TestRefreshEmbeddingFails(t *testing.T) {
	f := newFakeSkills(t, "alpha")
	f.embedErr = errors.New("no vectors yet")
	c, vecErr := f.refresh()
	if c.Vectors != nil || !errors.Is(vecErr, f.embedErr) {
		t.Fatalf("first build: vectors %v, err %v", c.Vectors, vecErr)
	}
	p := filepath.Join(f.dir.Path(), IndexFile)
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, vecErr := f.refresh(); !errors.Is(vecErr, f.embedErr) {
		t.Fatalf("again: err %v, want the embedding's", vecErr)
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the index was rewritten though only the embedding failed again")
	}
	f.embedErr = nil
	if c, vecErr := f.refresh(); c.Vectors == nil || vecErr != nil {
		t.Fatalf("once embedding works: vectors %v, err %v", c.Vectors, vecErr)
	}
}

// A refresh that reads every skill again (one was added) still takes the
// unchanged skills' body terms from the last build, not from their bodies.
func TestRefreshKeepsBodyTermsOnAFullRead(t *testing.T) {
	f := newFakeSkills(t, "alpha", "beta")
	f.refresh()
	c, ok := ReadCompiled(f.dir, RankerKey(ranker.DefaultConfig()), Want{Bodies: true, Vectors: true, Stamps: true})
	if !ok {
		t.Fatal("the compiled index does not read back")
	}
	c.keptBodyTerms()
	kept := []ranker.TermCount{{Term: "kept", N: 1}} // not what alpha's body gives
	c.Docs[0].BodyTerms = kept
	writeCompiled(f.dir, c)
	time.Sleep(10 * time.Millisecond)
	f.write("gamma", "about gamma")
	f.parsed = 0
	got, _ := f.refresh()
	if f.parsed != 3 {
		t.Fatalf("a skill added: %d parsed, want a full read of 3", f.parsed)
	}
	if !slices.Equal(got.Docs[0].BodyTerms, kept) {
		t.Errorf("alpha's body terms were read again: %v", got.Docs[0].BodyTerms)
	}
	if !slices.Contains(got.Docs[2].BodyTerms, ranker.TermCount{Term: "gamma", N: 1}) {
		t.Errorf("gamma's body terms %v", got.Docs[2].BodyTerms)
	}
	// An edited body is read again, whatever was kept.
	time.Sleep(10 * time.Millisecond)
	f.write("alpha", "about alpha, edited")
	got, _ = f.refresh()
	if slices.Equal(got.Docs[0].BodyTerms, kept) || !slices.Contains(got.Docs[0].BodyTerms, ranker.TermCount{Term: "edit", N: 1}) {
		t.Errorf("alpha edited: body terms %v", got.Docs[0].BodyTerms)
	}
}

// A caller that renders no body gets a warm index without the bodies, and
// the stamps still say nothing changed; when something did, the rebuild
// keeps every unchanged skill's body and terms all the same.
func TestRefreshWithoutBodies(t *testing.T) {
	f := newFakeSkills(t, "alpha", "beta")
	f.refresh()
	src := f.source()
	src.NoBodies = true
	refresh := func() Compiled {
		t.Helper()
		c, _, err := Refresh(f.dir, f.root, []string{"skills"}, ranker.DefaultConfig(), src)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	f.parsed = 0
	c := refresh()
	if f.parsed != 0 {
		t.Fatalf("nothing changed: %d parsed", f.parsed)
	}
	if c.Index == nil || c.Vectors == nil || len(c.Docs) != 2 || c.Docs[0].Body != "" {
		t.Fatalf("warm read without bodies: index %v, vectors %v, docs %d, alpha's body %q",
			c.Index != nil, c.Vectors != nil, len(c.Docs), c.Docs[0].Body)
	}
	time.Sleep(10 * time.Millisecond)
	f.write("beta", "about beta, edited")
	refresh()
	if f.parsed != 1 {
		t.Fatalf("beta edited: %d parsed, want 1", f.parsed)
	}
	stored, ok := ReadCompiled(f.dir, RankerKey(ranker.DefaultConfig()), Want{Bodies: true, Stamps: true})
	if !ok {
		t.Fatal("the compiled index does not read back")
	}
	stored.keptBodyTerms()
	if a := stored.Docs[0]; a.Body != "body of about alpha" || !slices.Contains(a.BodyTerms, ranker.TermCount{Term: "alpha", N: 1}) {
		t.Errorf("alpha after beta's edit: body %q, terms %v", a.Body, a.BodyTerms)
	}
	if b := stored.Docs[1]; b.Body != "body of about beta, edited" {
		t.Errorf("beta's stored body %q", b.Body)
	}
}

// The fallback model's vectors are kept beside the model's, each embedded
// only for what changed; an index of the model's alone gets them on its
// next refresh, and one whose fallback fails still routes with the model.
func TestRefreshKeepsFallbackVectors(t *testing.T) {
	f := newFakeSkills(t, "alpha", "beta")
	f.refresh() // the model's vectors only, as before the fallback existed
	var fbAsked []string
	fbErr := error(nil)
	src := f.source()
	src.FallbackKey = "builtin@1"
	src.Fallback = func(docs []ranker.Doc) (*Vectors, error) {
		if fbErr != nil {
			return nil, fbErr
		}
		v := &Vectors{Key: "builtin@1", Dim: 1}
		for _, d := range docs {
			fbAsked = append(fbAsked, d.ID)
			v.Rows = append(v.Rows, 1, 1)
		}
		return v, nil
	}
	refresh := func() Compiled {
		t.Helper()
		c, _, err := Refresh(f.dir, f.root, []string{"skills"}, ranker.DefaultConfig(), src)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	f.embedded = nil
	c := refresh()
	if c.Fallback == nil || c.Fallback.Key != "builtin@1" || c.Fallback.Docs() != 2 || len(fbAsked) != 2 || f.embedded != nil {
		t.Fatalf("fallback added: %+v, fallback asked %v, model asked %v", c.Fallback, fbAsked, f.embedded)
	}
	if got, ok := ReadCompiled(f.dir, RankerKey(ranker.DefaultConfig()), Want{Fallback: true}); !ok || got.Fallback == nil || got.Fallback.Docs() != 2 {
		t.Fatalf("the fallback vectors were not saved: %v", ok)
	}
	fbAsked = nil
	time.Sleep(10 * time.Millisecond)
	f.write("beta", "about beta, longer now")
	c = refresh()
	if !slices.Equal(fbAsked, []string{"beta"}) || !slices.Equal(f.embedded, []string{"beta"}) || c.Fallback.Docs() != 2 {
		t.Fatalf("beta edited: fallback asked %v, model asked %v", fbAsked, f.embedded)
	}
	fbErr = errors.New("no built-in model")
	f.write("gamma", "about gamma")
	c = refresh()
	if c.Fallback != nil || c.Vectors == nil || c.Vectors.Docs() != 3 {
		t.Fatalf("a fallback that fails: fallback %+v, vectors %+v", c.Fallback, c.Vectors)
	}
}
