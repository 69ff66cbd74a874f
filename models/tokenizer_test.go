package models

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

const minilmTokenizerSHA = "ff27f5d127a8530e893603522c04398a15ec14b73c6f59d4af2020af526b5100"

func mustTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestDefaultTokenizerAsset pins the shipped asset to the sha256 in assets/NOTICE.
func TestDefaultTokenizerAsset(t *testing.T) {
	tok := mustTokenizer(t)
	if got := tok.SHA256(); got != minilmTokenizerSHA {
		t.Fatalf("embedded tokenizer.json sha256 = %s, want %s (update assets/NOTICE)", got, minilmTokenizerSHA)
	}
	if got := tok.VocabSize(); got != 30522 {
		t.Fatalf("VocabSize = %d, want 30522", got)
	}
	want := []int32{0, 100, 101, 102, 103}
	if got := tok.Specials(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Specials = %v, want %v", got, want)
	}
	if !tok.IsSpecial(101) || tok.IsSpecial(7592) || tok.UnknownID() != 100 {
		t.Fatal("IsSpecial/UnknownID wrong")
	}
}

// Reference ids: an independent Python BERT BasicTokenizer + WordPiece over
// the same vocab.txt (each id checked to map to the token shown).
var tokenizerCases = []struct {
	text string
	ids  []int32 // without specials
}{
	{"hello world", []int32{7592, 2088}},
	{"The quick brown fox jumps over the lazy dog.", []int32{1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1012}},
	// valid ##ate the stripe web ##ho ##ok signature !
	{"Validate the Stripe webhook signature!", []int32{9398, 3686, 1996, 18247, 4773, 6806, 6559, 8085, 999}},
	// token ##ization of j ##son files ( v ##2 . 0 )
	{"tokenization of JSON files (v2.0)", []int32{19204, 3989, 1997, 1046, 3385, 6764, 1006, 1058, 2475, 1012, 1014, 1007}},
	// don ' t stop
	{"don't stop", []int32{2123, 1005, 1056, 2644}},
	{"café", []int32{7668}},                         // cafe
	{"naïve résumé", []int32{15743, 13746}},         // naive resume
	{"Ünïcödé Straße", []int32{27260, 2358, 27807}}, // unicode st ##raße
	{"東京 tower", []int32{1879, 1755, 3578}},         // 東 京 tower
	{"deploy 🚀 now", []int32{21296, 100, 2085}},     // deploy [UNK] now
	{"", []int32{}},
	{"   \t\n", []int32{}},
}

func TestTokenizerReference(t *testing.T) {
	tok := mustTokenizer(t)
	for _, tc := range tokenizerCases {
		t.Run(tc.text, func(t *testing.T) {
			got := tok.IDs(tc.text)
			if len(got) != len(tc.ids) || (len(got) > 0 && !reflect.DeepEqual(got, tc.ids)) {
				t.Fatalf("IDs(%q) = %v, want %v", tc.text, got, tc.ids)
			}
			enc := tok.Encode(tc.text)
			want := append(append([]int32{101}, tc.ids...), 102)
			if !reflect.DeepEqual(enc, want) {
				t.Fatalf("Encode(%q) = %v, want %v", tc.text, enc, want)
			}
		})
	}
}

func TestTokenizerAccents(t *testing.T) {
	tok := mustTokenizer(t)
	pairs := [][2]string{
		{"café", "cafe"},
		{"Café", "cafe"},
		{"naïve résumé", "naive resume"},
		{"cafe\u0301", "cafe"}, // already decomposed
		{"São Paulo façade", "sao paulo facade"},
	}
	for _, p := range pairs {
		a, b := tok.IDs(p[0]), tok.IDs(p[1])
		if !reflect.DeepEqual(a, b) {
			t.Errorf("IDs(%q) = %v, IDs(%q) = %v: want equal", p[0], a, p[1], b)
		}
		for _, id := range a {
			if id == tok.UnknownID() {
				t.Errorf("IDs(%q) contains [UNK]: %v", p[0], a)
			}
		}
	}
}

func TestTokenizerOddInput(t *testing.T) {
	tok := mustTokenizer(t)
	for _, s := range []string{
		"😀😀😀", "日本語のテキスト", "한국어 텍스트", "مرحبا بالعالم", "\x00\x01\x7f", "\xff\xfe invalid utf8",
		"[CLS] literal [SEP] tokens [MASK]", strings.Repeat("a", 1000), "\u200b\u200d\ufeff",
	} {
		ids := tok.IDs(s)
		for _, id := range ids {
			if id < 0 || int(id) >= tok.VocabSize() || (tok.IsSpecial(id) && id != tok.UnknownID()) {
				t.Errorf("IDs(%q) has bad id %d: %v", s, id, ids)
			}
		}
		enc := tok.Encode(s)
		if len(enc) < 2 || enc[0] != 101 || enc[len(enc)-1] != 102 {
			t.Errorf("Encode(%q) = %v, want [CLS] ... [SEP]", s, enc)
		}
	}
	if got := tok.IDs("[CLS] hello [SEP]"); !reflect.DeepEqual(got, []int32{7592}) {
		t.Errorf("literal specials kept: %v", got)
	}
}

func TestTokenizerLongText(t *testing.T) {
	tok := mustTokenizer(t)
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2000)
	ids := tok.IDs(long)
	if len(ids) != maxIDsTokens {
		t.Fatalf("len(IDs) = %d, want %d", len(ids), maxIDsTokens)
	}
	enc := tok.Encode(long)
	if len(enc) != maxEncodeTokens || enc[0] != 101 || enc[len(enc)-1] != 102 {
		t.Fatalf("Encode: len %d, ends %d..%d", len(enc), enc[0], enc[len(enc)-1])
	}
	// The prefix shortcut must give the same ids as tokenising everything.
	ref, err := jsonDefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	full := ref.runner(false)(ref.pre.Apply(long))
	if !reflect.DeepEqual(ids, full[:maxIDsTokens]) {
		t.Fatal("prefix tokenisation differs from full tokenisation")
	}
	// One giant word: no whitespace to cut at, must still work.
	if ids := tok.IDs(strings.Repeat("x", 20000)); len(ids) != 1 || ids[0] != 100 {
		t.Fatalf("giant word: %v", ids)
	}
}

func TestTokenizerConcurrent(t *testing.T) {
	tok := mustTokenizer(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				tc := tokenizerCases[i%len(tokenizerCases)]
				if got := tok.IDs(tc.text); len(got) != len(tc.ids) {
					t.Errorf("concurrent IDs(%q) = %v", tc.text, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestLoadTokenizer(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(defaultTokenizerGz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if hex.EncodeToString(sum[:]) != minilmTokenizerSHA {
		t.Fatal("asset sha mismatch")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("hello world"); !reflect.DeepEqual(got, []int32{101, 7592, 2088, 102}) {
		t.Fatalf("Encode = %v", got)
	}
	if _, err := LoadTokenizer(filepath.Join(dir, "missing.json")); err == nil {
		t.Fatal("missing file: want error")
	}
	bad := filepath.Join(dir, "bad.json")
	for _, body := range []string{"{", `{"model": {"type": "Nope"}}`, `{"normalizer": 3}`} {
		if err := os.WriteFile(bad, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTokenizer(bad); err == nil {
			t.Errorf("LoadTokenizer(%q): want error", body)
		}
	}
}

var benchTexts = []string{
	"validate the stripe webhook signature",
	"pdf-extract: Extract text and tables from PDF documents quickly",
	"A fast, small JSON parser for Go with zero allocations",
	"monitor server metrics and send alerts to slack",
}

func BenchmarkTokenizerIDs(b *testing.B) {
	tok := mustTokenizer(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tok.IDs(benchTexts[i%len(benchTexts)])
	}
}

func BenchmarkTokenizerIDsParallel(b *testing.B) {
	tok := mustTokenizer(b)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			tok.IDs(benchTexts[i%len(benchTexts)])
			i++
		}
	})
}
