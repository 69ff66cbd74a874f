package ranker

import (
	"slices"
	"testing"
)

func TestLexicalScorerTop(t *testing.T) {
	docs := []Doc{
		{Description: "parse pdf documents into text"},
		{Description: "render markdown to html"},
		{Description: "pdf viewer for the browser"},
		{Description: "parse markdown"},
		{Description: "pdf pdf pdf parser"},
		{Description: "unrelated words only"},
	}
	ix := NewIndex(docs, DefaultConfig())
	s := ix.NewLexicalScorer()
	for _, c := range []struct {
		name   string
		text   string
		k, max int
		skip   func(int) bool
		want   []int
	}{
		// "parser" and "parse" stem apart: docs 0 and 2 share only "pdf",
		// and the shorter one scores higher.
		{name: "best first", text: "pdf parser", k: 3, want: []int{4, 2, 0}},
		{name: "k caps", text: "pdf parser", k: 1, want: []int{4}},
		{name: "skip", text: "pdf parser", k: 3, skip: func(d int) bool { return d == 4 }, want: []int{2, 0}},
		{name: "only matches", text: "markdown", k: 5, want: []int{3, 1}},
		{name: "no match", text: "kubernetes", k: 3, want: nil},
		{name: "stopwords only", text: "the of and", k: 3, want: nil},
		{name: "k zero", text: "pdf", k: 0, want: nil},
		// pdf is in 3 docs: with MaxPostings 2 only "parse" counts.
		{name: "common terms ignored", text: "pdf parse", k: 5, max: 2, want: []int{3, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.MaxPostings = c.max
			got := s.Top(c.text, c.k, c.skip)
			if !slices.Equal(got, c.want) {
				t.Errorf("Top(%q, %d) = %v, want %v", c.text, c.k, got, c.want)
			}
		})
	}
	// Ties go by doc order (beta is rarer, so doc 1 leads), and a call
	// leaves no score behind for the next.
	tie := NewIndex([]Doc{{Description: "alpha"}, {Description: "beta"}, {Description: "alpha"}}, DefaultConfig()).NewLexicalScorer()
	for range 2 {
		if got := tie.Top("alpha beta", 3, nil); !slices.Equal(got, []int{1, 0, 2}) {
			t.Errorf("ties: got %v, want [1 0 2]", got)
		}
		if got := tie.Top("alpha", 3, nil); !slices.Equal(got, []int{0, 2}) {
			t.Errorf("alpha: got %v, want [0 2]", got)
		}
	}
}
