package ranker

import (
	"math"
	"slices"
	"testing"
)

func TestJaccard(t *testing.T) {
	for _, tt := range []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 0},
		{[]string{"a"}, nil, 0},
		{[]string{"a", "b"}, []string{"a", "b"}, 1},
		{[]string{"a", "b", "c"}, []string{"b", "c", "d"}, 0.5},
	} {
		if got := Jaccard(tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	// Reordered and re-punctuated, a description is the same set of terms.
	a := DupTerms(Doc{ID: "x", Description: "Extract text and tables from PDF files."})
	b := DupTerms(Doc{ID: "y", Description: "From PDF files: extract tables, and text"})
	if !slices.Equal(a, b) {
		t.Errorf("DupTerms: %v against %v", a, b)
	}
}

// TestDuplicates: a pair is reported by the model's cosine or by its
// words, each test off at a cut <= 0, highest cosine first.
func TestDuplicates(t *testing.T) {
	docs := []Doc{
		{ID: "pdf-extract", Description: "Extract text and tables from PDF files."},
		{ID: "pdf-tables", Description: "Extract tables and text from PDF files"},
		{ID: "docs-reader", Description: "Pull the words and grids out of a document."},
		{ID: "git-bisect", Description: "Find the commit that introduced a regression."},
	}
	cos := func(a, b int) float64 {
		if a == 0 && b == 2 {
			return 0.85
		}
		return 0.1
	}
	got := Duplicates(docs, cos, 0.8, 0.95)
	if len(got) != 2 || got[0].A != 0 || got[0].B != 2 || got[1].A != 0 || got[1].B != 1 || got[1].Jaccard != 1 {
		t.Fatalf("Duplicates = %+v, want 0~2 by cosine then 0~1 by words", got)
	}
	if got := Duplicates(docs, nil, 0.8, 0.95); len(got) != 1 || got[0].B != 1 {
		t.Errorf("without a model: %+v", got)
	}
	if got := Duplicates(docs, cos, 0.8, 0); len(got) != 1 || got[0].B != 2 {
		t.Errorf("words off: %+v", got)
	}
}

// TestRankMMRComparesBySimilar: with Options.Similar, MMR drops a
// paraphrase of a chosen skill that shares few words with it, and keeps
// both when the similarity is below SimilarDup.
func TestRankMMRComparesBySimilar(t *testing.T) {
	docs := []Doc{
		{ID: "pdf-extract", Description: "Extract text and tables from PDF files.", Weight: 1},
		{ID: "pdf-reader", Description: "Read the words and grids out of PDF documents.", Weight: 1},
		{ID: "git-bisect", Description: "Find the commit that introduced a regression with git bisect.", Weight: 1},
	}
	ix := NewIndex(docs, DefaultConfig())
	q := "extract the tables from this pdf and read the words"
	opt := Options{NoDynamicK: true, TopK: 2}
	if r := ix.Rank(q, opt); len(r.Emitted) != 2 {
		t.Fatalf("by words: emitted %v, want both pdf skills", r.Emitted)
	}
	same := func(a, b int) float64 {
		if a+b == 1 {
			return 0.9
		}
		return 0
	}
	opt.Similar, opt.SimilarDup = same, 0.8
	if r := ix.Rank(q, opt); len(r.Emitted) != 1 || len(r.Dropped) != 1 || r.Dropped[0].Like != r.Emitted[0] || r.Dropped[0].Sim != 0.9 || !r.Dropped[0].ByModel {
		t.Errorf("by the model: emitted %v (dropped %+v), want one of the two", r.Emitted, r.Dropped)
	}
	opt.SimilarDup = 0.95
	if r := ix.Rank(q, opt); len(r.Emitted) != 2 {
		t.Errorf("below the duplicate cosine: emitted %v, want both", r.Emitted)
	}
}
