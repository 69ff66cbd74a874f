package train

import (
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/megagit/megagit/models"
)

func TestMineHardNegatives(t *testing.T) {
	texts := []TextPair{
		{A: "pdf parser", B: "extract text from pdf files"},            // 0
		{A: "pdf viewer", B: "show pdf documents in the browser"},      // 1
		{A: "markdown parser", B: "turn markdown into html"},           // 2
		{A: "PDF  Parser", B: "another pdf parser with the same name"}, // 3: same a as 0
		{A: "csv tools", B: "extract text from PDF files"},             // 4: same b as 0
		{A: "html parser", B: "a parser for html and xml"},             // 5
		{A: "kubernetes", B: "container orchestration"},                // 6
	}
	for _, c := range []struct {
		name string
		h    HardNegatives
		want [][]int32
	}{
		{name: "off", h: HardNegatives{}, want: make([][]int32, len(texts))},
		{name: "k 2", h: HardNegatives{K: 2}, want: [][]int32{
			0: {5, 1}, // 3 (same a) and 4 (same b) are never 0's negatives
			1: {0, 3}, // "viewer" is in no b-text: 0, 3 and 4 tie on "pdf", doc order
			2: {5, 3},
			3: {5, 1},
			4: nil, // "csv tools" matches no b-text
			5: {2, 3},
			6: nil,
		}},
		{name: "skip 1", h: HardNegatives{K: 1, Skip: 1}, want: [][]int32{0: {1}, 1: {3}, 2: {3}, 3: {1}, 4: nil, 5: {3}, 6: nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, workers := range []int{1, 3} {
				got := MineHardNegatives(texts, c.h, workers)
				if len(got) != len(texts) {
					t.Fatalf("workers %d: %d lists for %d pairs", workers, len(got), len(texts))
				}
				for i := range got {
					if !slices.Equal(got[i], c.want[i]) {
						t.Errorf("workers %d: pair %d (%q): got %v, want %v", workers, i, texts[i].A, got[i], c.want[i])
					}
					if slices.Contains(got[i], int32(i)) {
						t.Errorf("pair %d is its own negative", i)
					}
				}
			}
		})
	}
}

func TestTokenizePairsWithNegatives(t *testing.T) {
	tok, err := models.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	texts := []TextPair{
		{A: "pdf parser", B: "extract text from pdf files"},
		{A: "", B: "no tokens on the left"},
		{A: "pdf viewer", B: "show pdf documents"},
		{A: "empty b", B: ""},
	}
	pairs := TokenizePairsWithNegatives(tok, texts, [][]int32{{2, 1, 3}, {0}, {0}, nil}, 1)
	if len(pairs) != 2 {
		t.Fatalf("got %d pairs, want 2 (the pairs without tokens dropped)", len(pairs))
	}
	// Pair 0 keeps 2 and 1 (1's b-text has tokens) and loses 3 (none).
	if n := len(pairs[0].Neg); n != 2 || !slices.Equal(pairs[0].Neg[0], pairs[1].B) {
		t.Errorf("pair 0 negatives: %v", pairs[0].Neg)
	}
	if len(pairs[1].Neg) != 1 || !slices.Equal(pairs[1].Neg[0], pairs[0].B) {
		t.Errorf("pair 2 negatives: %v", pairs[1].Neg)
	}
}

// BenchmarkMineHardNegatives mines hard negatives among the first
// MEGAGIT_MINE_N pairs (all when unset) of the pairs file
// MEGAGIT_MINE_PAIRS names, e.g. the training pairs `megagit model train
// --pairs` reads, to size a training run; MEGAGIT_MINE_MAXPOST sets
// HardNegatives.MaxPostings, and -v shows the first pairs' negatives:
//
//	MEGAGIT_MINE_PAIRS=pairs.jsonl.gz MEGAGIT_MINE_N=200000 go test ./models/train -run x -bench MineHardNegatives -benchtime 1x -v
func BenchmarkMineHardNegatives(b *testing.B) {
	path := os.Getenv("MEGAGIT_MINE_PAIRS")
	if path == "" {
		b.Skip("set MEGAGIT_MINE_PAIRS to a pairs file")
	}
	n, _ := strconv.Atoi(os.Getenv("MEGAGIT_MINE_N"))
	texts, _, err := ReadPairs(path, n)
	if err != nil {
		b.Fatal(err)
	}
	maxPost, _ := strconv.Atoi(os.Getenv("MEGAGIT_MINE_MAXPOST"))
	var negs [][]int32
	for b.Loop() {
		negs = MineHardNegatives(texts, HardNegatives{K: 2, MaxPostings: maxPost}, 2)
	}
	with := 0
	for _, l := range negs {
		if len(l) > 0 {
			with++
		}
	}
	b.Logf("%d pairs, %d with negatives", len(texts), with)
	for i := 0; i < 8 && i < len(texts); i++ {
		b.Logf("%q -> %q", texts[i].A, texts[i].B)
		for _, j := range negs[i] {
			b.Logf("    neg %q", texts[j].B)
		}
	}
}

func TestMineHardNegativesFilters(t *testing.T) {
	texts := []TextPair{
		{A: "extensions", B: "add-ons for the editor"},           // 0
		{A: "plug-in", B: "extension"},                           // 1: only 0's own word: a paraphrase
		{A: "add-on", B: "extension"},                            // 2: the same
		{A: "browser extensions", B: "extensions for browsers"},  // 3
		{A: "vscode extensions", B: "extensions for browsers"},   // 4: 3's b-text again
		{A: "chrome extensions", B: "extensions for the chrome"}, // 5
	}
	got := MineHardNegatives(texts, HardNegatives{K: 3}, 1)
	// 0: 1 and 2 say nothing but "extension"; 4 repeats 3's b-text.
	if want := []int32{3, 5}; !slices.Equal(got[0], want) {
		t.Errorf("pair 0: got %v, want %v", got[0], want)
	}
	// 3: 4 shares its b-text; 5 adds "chrome".
	if want := []int32{5}; !slices.Equal(got[3], want) {
		t.Errorf("pair 3: got %v, want %v", got[3], want)
	}
}
