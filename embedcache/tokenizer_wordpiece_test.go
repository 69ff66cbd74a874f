package embedcache

import (
	"reflect"
	"testing"
)

// TestCompactWordPieceModel checks the model behind the compact tokenizer
// against sugarme's WordPiece loaded from the JSON, entry by entry.
func TestCompactWordPieceModel(t *testing.T) {
	viaJSON, err := jsonDefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	compact, err := parseCompactTokenizer(defaultTokenizerCompact)
	if err != nil {
		t.Fatal(err)
	}
	want, got := viaJSON.tk.GetModel(), compact.tk.GetModel()
	if _, ok := got.(*compactWordPiece); !ok {
		t.Fatalf("compact tokenizer model is %T", got)
	}
	if got.GetVocabSize() != want.GetVocabSize() || !reflect.DeepEqual(got.GetVocab(), want.GetVocab()) {
		t.Fatal("vocabularies differ")
	}
	for tok, id := range want.GetVocab() {
		if g, ok := got.TokenToId(tok); !ok || g != id {
			t.Fatalf("TokenToId(%q) = %d, %v; want %d", tok, g, ok, id)
		}
	}
	for _, tok := range []string{"", "notavocabularyword", "##zzzzq", "[unk]"} {
		if _, ok := got.TokenToId(tok); ok {
			t.Errorf("TokenToId(%q) found a token", tok)
		}
	}
	for _, id := range []int{-1, got.GetVocabSize()} {
		if _, ok := got.IdToToken(id); ok {
			t.Errorf("IdToToken(%d) found a token", id)
		}
	}
	for _, word := range []string{"hello", "unaffable", "tokenization", "xyzzyplugh", "", "résumé", "日本"} {
		a, errA := want.Tokenize(word)
		b, errB := got.Tokenize(word)
		if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
			t.Errorf("Tokenize(%q): sugarme %v %v, compact %v %v", word, a, errA, b, errB)
		}
	}
}

func TestCompactWordPieceMalformed(t *testing.T) {
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
		if _, err := newCompactWordPiece(c.list, c.count); err == nil {
			t.Errorf("newCompactWordPiece(%q, %d) accepted it", c.list, c.count)
		}
	}
	wp, err := newCompactWordPiece("\x00\x01a\x02##", 3)
	if err != nil {
		t.Fatal(err)
	}
	for tok, want := range map[string]int{"": 0, "a": 1, "##": 2} {
		if id, ok := wp.TokenToId(tok); !ok || id != want {
			t.Errorf("TokenToId(%q) = %d, %v; want %d", tok, id, ok, want)
		}
	}
}
