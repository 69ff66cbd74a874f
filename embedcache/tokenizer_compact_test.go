package embedcache

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCompactTokenizerAsset checks assets/tokenizer.compact is the compact
// form of assets/tokenizer.json.gz; MEGAGIT_UPDATE_TOKENIZER=1 rewrites it.
func TestCompactTokenizerAsset(t *testing.T) {
	raw, err := defaultTokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := compactTokenizer(raw)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("MEGAGIT_UPDATE_TOKENIZER") != "" {
		if err := os.WriteFile(filepath.Join("assets", "tokenizer.compact"), want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if defaultTokenizerCompact != string(want) {
		t.Fatal("assets/tokenizer.compact is stale: regenerate it with MEGAGIT_UPDATE_TOKENIZER=1 go test ./embedcache -run CompactTokenizerAsset")
	}
}

// sharedBenchTexts are the strings the compact and JSON tokenizers are
// compared on: every query of the shared development benchmarks, and of
// their skills each description, heading and trigger line and each whole
// SKILL.md (long texts take the prefix path).
func sharedBenchTexts(t *testing.T) []string {
	t.Helper()
	var out []string
	pattern := "../../shared/bench/*/queries*.jsonl" // with metatool's 21,547 queries-full
	if testing.Short() {
		pattern = "../../shared/bench/*/queries.jsonl"
	}
	queries, _ := filepath.Glob(pattern)
	for _, q := range queries {
		f, err := os.Open(q)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Query string `json:"query"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				out = append(out, line.Query)
			}
		}
		f.Close()
	}
	skills, _ := filepath.Glob("../../shared/bench/*/skills/*/SKILL.md")
	for _, p := range skills {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "description:") || strings.HasPrefix(line, "#") || strings.Contains(line, "Use when") {
				out = append(out, line)
			}
		}
	}
	if len(queries) == 0 || len(skills) == 0 {
		t.Log("shared benchmarks not found: comparing on the reference cases only")
	}
	return out
}

// TestCompactTokenizerIDs checks the compact form builds a tokenizer that
// gives exactly the ids the JSON-loaded one gives.
func TestCompactTokenizerIDs(t *testing.T) {
	viaJSON, err := jsonDefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	compact, err := parseCompactTokenizer(defaultTokenizerCompact)
	if err != nil {
		t.Fatal(err)
	}
	if compact.SHA256() != viaJSON.SHA256() || compact.VocabSize() != viaJSON.VocabSize() ||
		compact.UnknownID() != viaJSON.UnknownID() || !reflect.DeepEqual(compact.Specials(), viaJSON.Specials()) ||
		compact.lowercase != viaJSON.lowercase || compact.strip != viaJSON.strip || !reflect.DeepEqual(compact.literals, viaJSON.literals) {
		t.Fatal("compact tokenizer metadata differs from the JSON-loaded one")
	}
	texts := sharedBenchTexts(t)
	for _, c := range tokenizerCases {
		texts = append(texts, c.text)
	}
	texts = append(texts, "😀😀😀", "日本語のテキスト", "한국어 텍스트", "مرحبا بالعالم", "\x00\x01\x7f", "\xff\xfe invalid utf8",
		"[CLS] literal [SEP] tokens [MASK]", "[PAD][UNK]", strings.Repeat("a", 1000), "\u200b\u200d\ufeff",
		strings.Repeat("the quick brown fox jumps over the lazy dog ", 2000), "Ünïcödé Straße café naïve résumé")
	for _, s := range texts {
		if a, b := viaJSON.IDs(s), compact.IDs(s); !reflect.DeepEqual(a, b) {
			t.Fatalf("IDs(%.80q): json %v, compact %v", s, a, b)
		}
		if a, b := viaJSON.Encode(s), compact.Encode(s); !reflect.DeepEqual(a, b) {
			t.Fatalf("Encode(%.80q): json %v, compact %v", s, a, b)
		}
	}
	t.Logf("%d texts tokenised identically", len(texts))
	// The vocabulary itself, id by id.
	for id := 0; id < viaJSON.VocabSize(); id++ {
		a, okA := viaJSON.tk.IdToToken(id)
		b, okB := compact.tk.IdToToken(id)
		if a != b || okA != okB {
			t.Fatalf("token %d: json %q, compact %q", id, a, b)
		}
	}
}

func TestCompactTokenizerMalformed(t *testing.T) {
	for _, data := range []string{
		"", "junk", compactMagic,
		defaultTokenizerCompact[:len(defaultTokenizerCompact)/2],
		defaultTokenizerCompact + "\x00",
	} {
		if _, err := parseCompactTokenizer(data); err == nil {
			t.Errorf("parseCompactTokenizer(%d bytes) accepted a damaged form", len(data))
		}
	}
}

// BenchmarkDefaultTokenizerLoad compares what a process pays to get the
// default tokenizer: the compact form against the JSON.
func BenchmarkDefaultTokenizerLoad(b *testing.B) {
	b.Run("compact", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := parseCompactTokenizer(defaultTokenizerCompact); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := jsonDefaultTokenizer(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
