package models

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/megagit/megagit/models/staticmodel"
)

// compactAsset is where staticmodel embeds the compact tokenizer from.
var compactAsset = filepath.Join("staticmodel", "assets", "tokenizer.compact")

// TestCompactTokenizerAsset checks staticmodel's assets/tokenizer.compact
// is the compact form of assets/tokenizer.json.gz;
// MEGAGIT_UPDATE_TOKENIZER=1 rewrites it.
func TestCompactTokenizerAsset(t *testing.T) {
	raw, err := defaultTokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	want, err := staticmodel.EncodeCompact(raw, hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("MEGAGIT_UPDATE_TOKENIZER") != "" {
		if err := os.WriteFile(compactAsset, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(compactAsset)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != string(want) {
		t.Fatal(compactAsset + " is stale: regenerate it with MEGAGIT_UPDATE_TOKENIZER=1 go test ./models -run CompactTokenizerAsset")
	}
}

// repoTestdataTexts are the committed texts of the repository's testdata
// folders (the published skills of testdata/realskills, transcripts,
// scripts): each file whole and line by line, so long texts take the
// tokenizer's prefix path and every description, heading and trigger line
// is compared on its own.
func repoTestdataTexts(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "fuzz" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(filepath.ToSlash(path), "/testdata/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 1<<20 || !utf8.Valid(b) {
			return err
		}
		out = append(out, string(b))
		out = append(out, strings.Split(string(b), "\n")...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// edgeTexts are generated strings for what a BERT pipeline gets wrong:
// accents, CJK, emoji, control characters, invalid UTF-8, long words,
// special tokens typed literally, every Unicode punctuation and space
// class, and texts long enough to take the prefix path.
func edgeTexts() []string {
	out := []string{
		"", " ", "\t\n\r\f\v", "café Ångström naïve résumé Ünïcödé Straße", "ÀÉÎÕÜ àéîõü ǅ ǈ İstanbul ΣΑΣ ﬁ ﬂ",
		"日本語のテキスト", "中文文本测试", "한국어 텍스트", "مرحبا بالعالم", "שלום", "Привет, мир!", "ㄅㄆㄇ ｶﾀｶﾅ ｱｲｳ",
		"\u3400\u4dbf\u4e00\u9fff\uf900\ufaff\U00020000\U0002a6df\U0002a700\U0002b820\U0002ceaf\U0002f800\U0002fa1f",
		"a\u3400b a\u4e00b a\U0002b81fb", "😀😀😀", "👩‍👩‍👧 🇫🇷 ✋🏽 emoji soup", "\x00", "a\x00b", "\x00\x01\x7f", "\xff\xfe invalid utf8", "ab\xc3", "\xed\xa0\x80",
		"\u200b\u200d\ufeff", "a\u00adb", "a\u200bb", "x\ufffdy", "a\u0085b", "non\u00a0breaking em\u2003space ideo\u3000space",
		"tabs\tand\nnewlines\r\nand\fform\vfeed", "[CLS]", "[UNK]", "[MASK]", "[SEP]", "[PAD]",
		"\xa5キ\x00", "\ufffdキ\x00 after", // sugarme panics on these
		"[CLS] literal [SEP] tokens [MASK]", "[PAD][UNK]", "[SEP] x [CLS]", "[cls] [Cls] [ CLS ]", "x[CLS]y[UNK]z",
		"[[CLS]]", "[CLS][CLS][CLS]", "[MASK] [UNK] [SEP] [CLS] [PAD]",
		strings.Repeat("[CLS] a [SEP] b [UNK] c [MASK] ", 9), strings.Repeat("[UNK][SEP]x", 20), strings.Repeat("y[MASK] [PAD]", 13),
		strings.Repeat("a", 100), strings.Repeat("a", 101), strings.Repeat("a", 1000), strings.Repeat("é", 100), strings.Repeat("é", 101),
		strings.Repeat("日", 120), strings.Repeat("ab", 60) + " short", "unaffable tokenization xyzzyplugh",
		"don't stop-believing: e-mail@example.com, https://example.com/a?b=c#d (ok) [x] {y} <z> 3.14 1,000 $5 ~/path_name",
		strings.Repeat("the quick brown fox jumps over the lazy dog ", 2000),
		strings.Repeat("supercalifragilisticexpialidocious", 200),
		strings.Repeat("x", 5000) + " tail words here",
		strings.Repeat("word ", 900) + strings.Repeat("é", 3000),
		strings.Repeat("日本", 3000), strings.Repeat("a.", 3000), strings.Repeat("\x00 ", 3000) + "end",
		strings.Repeat("[CLS] ", 1000),
	}
	// Every rune of each punctuation and symbol class, alone and inside a word.
	for _, cat := range []string{"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Cc", "Cf", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Lm"} {
		var b strings.Builder
		n := 0
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if unicode.Is(unicode.Categories[cat], r) {
				b.WriteString("a")
				b.WriteRune(r)
				b.WriteString("b ")
				b.WriteRune(r)
				b.WriteString(" ")
				if n++; n%40 == 0 {
					out = append(out, b.String())
					b.Reset()
				}
			}
		}
		out = append(out, b.String())
	}
	return out
}

// everyRuneTexts holds every assigned code point (private use aside), 32
// to a text, each inside a word.
func everyRuneTexts() []string {
	var out []string
	var b strings.Builder
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf) {
			continue
		}
		b.WriteString("q")
		b.WriteRune(r)
		b.WriteString("z ")
		if n++; n%32 == 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	return append(out, b.String())
}

// referenceTokenizers are sugarme's pipeline over the shipped
// tokenizer.json (the reference) and staticmodel's.
func referenceTokenizers(t testing.TB) (ref *Tokenizer, st *staticmodel.Tokenizer) {
	t.Helper()
	ref, err := jsonDefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	st, err = staticmodel.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	return ref, st
}

// TestStaticTokenizerMatchesReference is the differential test:
// staticmodel's tokenizer gives exactly the ids sugarme's pipeline gives.
func TestStaticTokenizerMatchesReference(t *testing.T) {
	ref, st := referenceTokenizers(t)
	if st.SHA256() != ref.SHA256() || st.VocabSize() != ref.VocabSize() || st.UnknownID() != ref.UnknownID() ||
		!reflect.DeepEqual(st.Specials(), ref.Specials()) || !st.PreNorm().Equal(ref.pre) {
		t.Fatal("staticmodel tokenizer metadata differs from the JSON-loaded one")
	}
	texts := repoTestdataTexts(t)
	for _, c := range tokenizerCases {
		texts = append(texts, c.text)
	}
	texts = append(texts, edgeTexts()...)
	if !testing.Short() {
		texts = append(texts, everyRuneTexts()...)
	}
	for _, s := range texts {
		b := st.IDs(s)
		a, ok := sugarmeIDs(ref, s)
		if !ok {
			t.Logf("sugarme panics on %+.80q; staticmodel gives %v", s, b)
			continue
		}
		if !reflect.DeepEqual(a, b) && (len(a) != 0 || len(b) != 0) {
			t.Fatalf("IDs(%+.80q): sugarme %v, staticmodel %v", s, a, b)
		}
		if a, b := ref.Encode(s), st.Encode(s); !reflect.DeepEqual(a, b) {
			t.Fatalf("Encode(%+.80q): sugarme %v, staticmodel %v", s, a, b)
		}
	}
	t.Logf("%d texts tokenised identically", len(texts))
}

// TestStaticVocabMatchesReference checks the vocabulary id by id.
func TestStaticVocabMatchesReference(t *testing.T) {
	ref, st := referenceTokenizers(t)
	v := st.Vocab()
	for id := 0; id < ref.VocabSize(); id++ {
		a, okA := ref.tk.IdToToken(id)
		b, okB := v.Token(id)
		if a != b || okA != okB {
			t.Fatalf("token %d: json %q, staticmodel %q", id, a, b)
		}
		if got, ok := v.ID(a); !ok || got != id {
			t.Fatalf("ID(%q) = %d, %v; want %d", a, got, ok, id)
		}
	}
	for _, tok := range []string{"", "notavocabularyword", "##zzzzq", "[unk]"} {
		if _, ok := v.ID(tok); ok {
			t.Errorf("ID(%q) found a token", tok)
		}
	}
}

// FuzzStaticTokenizerMatchesReference: for any text, staticmodel's ids are
// sugarme's.
func FuzzStaticTokenizerMatchesReference(f *testing.F) {
	for _, s := range edgeTexts() {
		if len(s) < 300 {
			f.Add(s)
		}
	}
	for _, c := range tokenizerCases {
		f.Add(c.text)
	}
	ref, st := referenceTokenizers(f)
	f.Fuzz(func(t *testing.T, s string) {
		b := st.IDs(s) // must not panic, whatever sugarme does
		enc := st.Encode(s)
		a, ok := sugarmeIDs(ref, s)
		if !ok {
			t.Skip("sugarme panics on this text: nothing to compare")
		}
		if !reflect.DeepEqual(a, b) && (len(a) != 0 || len(b) != 0) {
			t.Fatalf("IDs(%+q): sugarme %v, staticmodel %v", s, a, b)
		}
		if a := ref.Encode(s); !reflect.DeepEqual(a, enc) {
			t.Fatalf("Encode(%+q): sugarme %v, staticmodel %v", s, a, enc)
		}
	})
}

// sugarmeIDs is ref.IDs, or ok = false when sugarme panics (it does on
// some texts with a removed character, e.g. "\xa5キ\x00": its
// NormalizedString.Slice returns nil).
func sugarmeIDs(ref *Tokenizer, s string) (ids []int32, ok bool) {
	defer func() {
		if recover() != nil {
			ids, ok = nil, false
		}
	}()
	return ref.IDs(s), true
}

// BenchmarkDefaultTokenizerLoad compares what a process pays to get the
// default tokenizer: staticmodel's compact form against sugarme's JSON.
func BenchmarkDefaultTokenizerLoad(b *testing.B) {
	data, err := os.ReadFile(compactAsset)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("compact", func(b *testing.B) {
		for b.Loop() {
			if _, err := staticmodel.ParseCompact(string(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, err := jsonDefaultTokenizer(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
