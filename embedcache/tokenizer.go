package embedcache

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
	"golang.org/x/text/unicode/norm"
)

// Token caps: Encode feeds transformer models (512 positions); IDs feeds the
// static model, where a mean over more than a few hundred tokens adds nothing.
const (
	maxEncodeTokens = 512
	maxIDsTokens    = 256
)

//go:embed assets/tokenizer.json.gz
var defaultTokenizerGz []byte

// Tokenizer wraps a HuggingFace tokenizer.json with the normalisation that
// sugarme/tokenizer gets wrong for uncased BERT vocabularies (accents).
// It is safe for concurrent use.
type Tokenizer struct {
	tk        *tokenizer.Tokenizer
	lowercase bool // pre-lowercase the input
	strip     bool // NFD + drop combining marks before tokenising
	vocabSize int
	unk       int32 // -1 when the model has no unknown token
	special   map[int32]bool
	specials  []int32
	literals  []string // added tokens matched before normalisation ("[CLS]")
	sha       string
}

var (
	defaultTokOnce sync.Once
	defaultTok     *Tokenizer
	defaultTokErr  error
)

// DefaultTokenizer is the all-MiniLM-L6-v2 tokenizer shipped in the binary:
// the static model's vocabulary. It is built once per process, from its
// compact form (tokenizer_compact.go) unless that is damaged.
func DefaultTokenizer() (*Tokenizer, error) {
	defaultTokOnce.Do(func() {
		if t, err := parseCompactTokenizer(defaultTokenizerCompact); err == nil {
			defaultTok = t
			return
		}
		defaultTok, defaultTokErr = jsonDefaultTokenizer()
	})
	return defaultTok, defaultTokErr
}

// jsonDefaultTokenizer parses the shipped tokenizer.json itself.
func jsonDefaultTokenizer() (*Tokenizer, error) {
	raw, err := defaultTokenizerJSON()
	if err != nil {
		return nil, fmt.Errorf("embedded tokenizer: %w", err)
	}
	t, err := parseTokenizer(raw)
	if err != nil {
		return nil, fmt.Errorf("embedded tokenizer: %w", err)
	}
	return t, nil
}

// defaultTokenizerJSON is the shipped tokenizer.json, decompressed.
func defaultTokenizerJSON() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(defaultTokenizerGz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// LoadTokenizer reads any tokenizer.json, e.g. the one next to an ONNX model.
func LoadTokenizer(path string) (*Tokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := parseTokenizer(raw)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// tokenizerHeader is the part of tokenizer.json that decides our own
// pre-normalisation and the special-token set.
type tokenizerHeader struct {
	Normalizer *struct {
		Type         string `json:"type"`
		Lowercase    *bool  `json:"lowercase"`
		StripAccents *bool  `json:"strip_accents"`
	} `json:"normalizer"`
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		Special    bool   `json:"special"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Model struct {
		UnkToken string `json:"unk_token"`
	} `json:"model"`
}

func parseTokenizer(raw []byte) (t *Tokenizer, err error) {
	var hdr tokenizerHeader
	if err := json.Unmarshal(raw, &hdr); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	// sugarme type-asserts freely on unexpected JSON; turn a panic into an error.
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("unsupported tokenizer.json: %v", r)
		}
	}()
	tk, err := pretrained.FromReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	sum := sha256.Sum256(raw)
	return newTokenizer(tk, &hdr, hex.EncodeToString(sum[:])), nil
}

// newTokenizer wraps a loaded sugarme tokenizer with our normalisation and
// special-token bookkeeping from the file's header; sha identifies the file.
func newTokenizer(tk *tokenizer.Tokenizer, hdr *tokenizerHeader, sha string) *Tokenizer {
	// The file pads to 128 and truncates at 256: we cap ourselves instead.
	tk.WithPadding(nil)
	tk.WithTruncation(nil)
	t := &Tokenizer{
		tk:        tk,
		vocabSize: tk.GetVocabSize(true),
		unk:       -1,
		special:   map[int32]bool{},
		sha:       sha,
	}
	if n := hdr.Normalizer; n != nil && n.Type == "BertNormalizer" {
		t.lowercase = n.Lowercase == nil || *n.Lowercase // HF default: true
		// HF: strip_accents null means "follow lowercase".
		t.strip = t.lowercase
		if n.StripAccents != nil {
			t.strip = *n.StripAccents
		}
	}
	for _, a := range hdr.AddedTokens {
		if !a.Normalized && a.Content != "" {
			t.literals = append(t.literals, a.Content)
		}
		if a.Special && !t.special[a.ID] {
			t.special[a.ID] = true
			t.specials = append(t.specials, a.ID)
		}
	}
	if hdr.Model.UnkToken != "" {
		if id, ok := tk.TokenToId(hdr.Model.UnkToken); ok {
			t.unk = int32(id)
		}
	}
	return t
}

// SHA256 identifies the tokenizer.json a model was trained with, so a model
// folder can refuse a mismatching tokenizer.
func (t *Tokenizer) SHA256() string { return t.sha }

// VocabSize is the number of token ids (including added tokens): the row
// count of a static model's table.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// Specials lists the special token ids ([PAD], [UNK], [CLS], ...), so
// callers can mask them.
func (t *Tokenizer) Specials() []int32 { return append([]int32(nil), t.specials...) }

// IsSpecial reports whether id is a special token.
func (t *Tokenizer) IsSpecial(id int32) bool { return t.special[id] }

// UnknownID is the id of the unknown token ([UNK]), or -1.
func (t *Tokenizer) UnknownID() int32 { return t.unk }

// Encode returns the ids a transformer model expects: special tokens
// included ([CLS] ... [SEP]), at most 512 ids, no padding.
func (t *Tokenizer) Encode(text string) []int32 {
	ids := t.encode(text, true, maxEncodeTokens)
	if len(ids) > maxEncodeTokens {
		// Keep the closing special token, as HF truncation does.
		last := ids[len(ids)-1]
		ids = append(ids[:maxEncodeTokens-1], last)
	}
	return ids
}

// IDs returns the word-piece ids the static model pools: no [CLS]/[SEP]/
// [PAD]/[MASK] (also not when typed literally), [UNK] kept, at most 256 ids.
func (t *Tokenizer) IDs(text string) []int32 {
	ids := t.encode(text, false, maxIDsTokens)
	out := ids[:0]
	for _, id := range ids {
		if id != t.unk && t.special[id] {
			continue
		}
		out = append(out, id)
	}
	if len(out) > maxIDsTokens {
		out = out[:maxIDsTokens]
	}
	return out
}

// encode tokenises text; for long texts it first tokenises a prefix cut at
// whitespace (tokens of such a prefix are a prefix of the full tokens) and
// only falls back to the whole text when the prefix yields too few tokens.
func (t *Tokenizer) encode(text string, special bool, limit int) []int32 {
	text = t.normalize(text)
	if cut := limit * 16; len(text) > cut {
		if i := strings.LastIndexAny(text[:cut], " \t\n\r"); i > 0 {
			if ids := t.run(text[:i], special); len(ids) >= limit+2 {
				return ids
			}
		}
	}
	return t.run(text, special)
}

func (t *Tokenizer) run(text string, special bool) []int32 {
	enc, err := t.tk.EncodeSingle(text, special)
	if err != nil || enc == nil {
		return nil
	}
	ids := make([]int32, len(enc.Ids))
	for i, id := range enc.Ids {
		ids[i] = int32(id)
	}
	return ids
}

// normalize applies what HF's BertNormalizer does and sugarme does not:
// strip accents after NFD ("café" -> "cafe") and lowercase. Like HF, it
// leaves literal added tokens such as "[CLS]" alone.
func (t *Tokenizer) normalize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !t.strip && !t.lowercase {
		return s
	}
	var b strings.Builder
	for {
		at, lit := -1, ""
		for _, l := range t.literals {
			if i := strings.Index(s, l); i >= 0 && (at < 0 || i < at || (i == at && len(l) > len(lit))) {
				at, lit = i, l
			}
		}
		if at < 0 {
			if b.Len() == 0 {
				return t.normalizePart(s)
			}
			b.WriteString(t.normalizePart(s))
			return b.String()
		}
		b.WriteString(t.normalizePart(s[:at]))
		b.WriteString(lit)
		s = s[at+len(lit):]
	}
}

func (t *Tokenizer) normalizePart(s string) string {
	if t.strip && !isASCII(s) {
		d := norm.NFD.String(s)
		var b strings.Builder
		b.Grow(len(d))
		for _, r := range d {
			if unicode.Is(unicode.Mn, r) {
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if t.lowercase {
		s = strings.ToLower(s)
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
