package models

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models/staticmodel"
	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// Token caps: Encode feeds transformer models (512 positions); IDs feeds the
// static model, where a mean over more than a few hundred tokens adds nothing.
const (
	maxEncodeTokens = 512
	maxIDsTokens    = 256
)

//go:embed assets/tokenizer.json.gz
var defaultTokenizerGz []byte

// Tokenizer is a BERT-style tokenizer: the default one is staticmodel's
// (the static model's vocabulary, which the prompt hook links without
// sugarme); any other tokenizer.json (an ONNX model's) is sugarme's
// pipeline with megagit's pre-normalisation (staticmodel.PreNorm), which
// sugarme gets wrong for uncased BERT vocabularies (accents). It is safe
// for concurrent use.
type Tokenizer struct {
	st *staticmodel.Tokenizer // the default tokenizer; nil for a sugarme one

	tk        *tokenizer.Tokenizer
	pre       staticmodel.PreNorm
	vocabSize int
	unk       int32 // -1 when the model has no unknown token
	special   map[int32]bool
	specials  []int32
	sha       string
}

// DefaultTokenizer is the all-MiniLM-L6-v2 tokenizer shipped in the binary:
// the static model's vocabulary, staticmodel's tokenizer built once.
var DefaultTokenizer = sync.OnceValues(func() (*Tokenizer, error) {
	st, err := staticmodel.DefaultTokenizer()
	if err != nil {
		return nil, err
	}
	return &Tokenizer{st: st}, nil
})

// jsonDefaultTokenizer parses the shipped tokenizer.json with sugarme: the
// reference staticmodel's tokenisation is checked against.
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

// maxTokenizerFile bounds a tokenizer.json (the largest vocabularies are
// tens of MiB).
const maxTokenizerFile = 256 << 20

// LoadTokenizer reads any tokenizer.json, e.g. the one next to an ONNX model.
func LoadTokenizer(path string) (*Tokenizer, error) {
	raw, err := local.ReadRegular(path, maxTokenizerFile)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := parseTokenizer(raw)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

func parseTokenizer(raw []byte) (t *Tokenizer, err error) {
	hdr, err := staticmodel.ParseHeader(raw)
	if err != nil {
		return nil, err
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
	return newTokenizer(tk, hdr, hex.EncodeToString(sum[:])), nil
}

// newTokenizer wraps a loaded sugarme tokenizer with our normalisation and
// special-token bookkeeping from the file's header; sha identifies the file.
func newTokenizer(tk *tokenizer.Tokenizer, hdr *staticmodel.Header, sha string) *Tokenizer {
	// The file pads to 128 and truncates at 256: we cap ourselves instead.
	tk.WithPadding(nil)
	tk.WithTruncation(nil)
	t := &Tokenizer{
		tk:        tk,
		pre:       hdr.PreNorm(),
		vocabSize: tk.GetVocabSize(true),
		unk:       -1,
		special:   map[int32]bool{},
		sha:       sha,
	}
	for _, a := range hdr.AddedTokens {
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
func (t *Tokenizer) SHA256() string {
	if t.st != nil {
		return t.st.SHA256()
	}
	return t.sha
}

// VocabSize is the number of token ids (including added tokens): the row
// count of a static model's table.
func (t *Tokenizer) VocabSize() int {
	if t.st != nil {
		return t.st.VocabSize()
	}
	return t.vocabSize
}

// Specials lists the special token ids ([PAD], [UNK], [CLS], ...), so
// callers can mask them.
func (t *Tokenizer) Specials() []int32 {
	if t.st != nil {
		return t.st.Specials()
	}
	return append([]int32(nil), t.specials...)
}

// IsSpecial reports whether id is a special token.
func (t *Tokenizer) IsSpecial(id int32) bool {
	if t.st != nil {
		return t.st.IsSpecial(id)
	}
	return t.special[id]
}

// UnknownID is the id of the unknown token ([UNK]), or -1.
func (t *Tokenizer) UnknownID() int32 {
	if t.st != nil {
		return t.st.UnknownID()
	}
	return t.unk
}

// Encode returns the ids a transformer model expects: special tokens
// included ([CLS] ... [SEP]), at most 512 ids, no padding.
func (t *Tokenizer) Encode(text string) []int32 {
	if t.st != nil {
		return t.st.Encode(text)
	}
	ids := staticmodel.EncodeLong(t.pre.Apply(text), maxEncodeTokens, maxEncodeTokens+2, t.runner(true))
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
	if t.st != nil {
		return t.st.IDs(text)
	}
	ids := staticmodel.EncodeLong(t.pre.Apply(text), maxIDsTokens, maxIDsTokens+2, t.runner(false))
	return staticmodel.PooledIDs(ids, t.unk, t.special)
}

// runner tokenises pre-normalised text with sugarme.
func (t *Tokenizer) runner(special bool) func(string) []int32 {
	return func(text string) []int32 {
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
}
