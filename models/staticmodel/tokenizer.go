package staticmodel

import (
	_ "embed"
	"fmt"
	"sync"
)

// Token caps: Encode feeds transformer models (512 positions); IDs feeds the
// static model, where a mean over more than a few hundred tokens adds nothing.
const (
	maxEncodeTokens = 512
	maxIDsTokens    = 256
)

// The all-MiniLM-L6-v2 tokenizer (BERT uncased, 30,522 tokens) in compact
// form (compact.go), generated from embedcache/assets/tokenizer.json.gz;
// embedcache's TestCompactTokenizerAsset keeps the two in step.
//
//go:embed assets/tokenizer.compact
var defaultCompact string

// Tokenizer is a BERT WordPiece tokenizer: megagit's pre-normalisation,
// then the BERT pipeline as sugarme runs it. Safe for concurrent use.
type Tokenizer struct {
	vocab    *Vocab
	pre      PreNorm
	cfg      bertConfig
	literals []literal
	special  map[int32]bool
	specials []int32
	unk      int32   // -1 when the vocabulary has no unknown token
	wrap     []int32 // Encode's specials: before, then after the text
	wrapAt   int     // how many of wrap go before
	sha      string
}

// DefaultTokenizer is the tokenizer compiled into the binary, built once.
var DefaultTokenizer = sync.OnceValues(func() (*Tokenizer, error) {
	t, err := ParseCompact(defaultCompact)
	if err != nil {
		return nil, fmt.Errorf("embedded tokenizer: %w", err)
	}
	return t, nil
})

// newTokenizer checks the header describes the pipeline this package
// runs (BertNormalizer, BertPreTokenizer, WordPiece) and sets it up.
func newTokenizer(v *Vocab, h *Header, sha string) (*Tokenizer, error) {
	n := h.Normalizer
	if n == nil || n.Type != "BertNormalizer" {
		return nil, fmt.Errorf("unsupported tokenizer.json: normalizer is not BertNormalizer")
	}
	if h.PreTokenizer == nil || h.PreTokenizer.Type != "BertPreTokenizer" {
		return nil, fmt.Errorf("unsupported tokenizer.json: pre_tokenizer is not BertPreTokenizer")
	}
	if h.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("unsupported tokenizer.json: model is %q, not WordPiece", h.Model.Type)
	}
	flag := func(b *bool) bool { return b != nil && *b } // sugarme reads null as false
	t := &Tokenizer{
		vocab: v, pre: h.PreNorm(), special: map[int32]bool{}, unk: -1, sha: sha,
		cfg: bertConfig{clean: flag(n.CleanText), chinese: flag(n.HandleChineseChars), lower: flag(n.Lowercase),
			strip: flag(n.StripAccents), maxChars: 100, prefix: "##"},
	}
	// sugarme's WordPiece takes only unk_token and max_input_chars_per_word.
	unk := "[UNK]"
	if h.Model.UnkToken != "" {
		unk = h.Model.UnkToken
	}
	if h.Model.MaxInputChars != nil {
		t.cfg.maxChars = int(*h.Model.MaxInputChars)
	}
	t.cfg.unk, t.cfg.unkOK = v.ID(unk)
	if t.cfg.unkOK {
		t.unk = int32(t.cfg.unk)
	}
	// Pattern order: special tokens first, then the other added tokens.
	var others []literal
	for _, a := range h.AddedTokens {
		if a.Content == "" {
			continue
		}
		if a.Normalized || a.SingleWord || a.LStrip || a.RStrip {
			return nil, fmt.Errorf("unsupported tokenizer.json: added token %q is normalized, single_word or stripped", a.Content)
		}
		id, ok := v.ID(a.Content)
		if !ok {
			return nil, fmt.Errorf("unsupported tokenizer.json: added token %q is not in the vocabulary", a.Content)
		}
		if a.Special {
			t.literals = append(t.literals, literal{a.Content, id})
			if !t.special[a.ID] {
				t.special[a.ID] = true
				t.specials = append(t.specials, a.ID)
			}
		} else {
			others = append(others, literal{a.Content, id})
		}
	}
	t.literals = append(t.literals, others...)
	if pp := h.PostProcessor; pp != nil {
		if pp.Type != "TemplateProcessing" {
			return nil, fmt.Errorf("unsupported tokenizer.json: post_processor is %q", pp.Type)
		}
		seen := false
		for _, p := range pp.Single {
			switch {
			case p.Sequence != nil:
				seen = true
			case p.SpecialToken != nil:
				id, ok := v.ID(p.SpecialToken.ID)
				if !ok {
					return nil, fmt.Errorf("unsupported tokenizer.json: post_processor token %q is not in the vocabulary", p.SpecialToken.ID)
				}
				t.wrap = append(t.wrap, int32(id))
				if !seen {
					t.wrapAt++
				}
			}
		}
	}
	return t, nil
}

// SHA256 identifies the tokenizer.json a model was trained with, so a model
// folder can refuse a mismatching tokenizer.
func (t *Tokenizer) SHA256() string { return t.sha }

// VocabSize is the number of token ids: the row count of a static
// model's table.
func (t *Tokenizer) VocabSize() int { return t.vocab.Len() }

// Vocab is the vocabulary, for tests and tools that look tokens up.
func (t *Tokenizer) Vocab() *Vocab { return t.vocab }

// Specials lists the special token ids ([PAD], [UNK], [CLS], ...), so
// callers can mask them.
func (t *Tokenizer) Specials() []int32 { return append([]int32(nil), t.specials...) }

// IsSpecial reports whether id is a special token.
func (t *Tokenizer) IsSpecial(id int32) bool { return t.special[id] }

// UnknownID is the id of the unknown token ([UNK]), or -1.
func (t *Tokenizer) UnknownID() int32 { return t.unk }

// PreNorm is the tokenizer's pre-normalisation.
func (t *Tokenizer) PreNorm() PreNorm { return t.pre }

// IDs returns the word-piece ids the static model pools: no [CLS]/[SEP]/
// [PAD]/[MASK] (also not when typed literally), [UNK] kept, at most 256 ids.
func (t *Tokenizer) IDs(text string) []int32 {
	return PooledIDs(EncodeLong(t.pre.Apply(text), maxIDsTokens, maxIDsTokens+2, t.run), t.unk, t.special)
}

// PooledIDs keeps, of a text's ids, those a static model pools: no special
// token but the unknown one (unk), at most 256. It reuses ids.
func PooledIDs(ids []int32, unk int32, special map[int32]bool) []int32 {
	out := ids[:0]
	for _, id := range ids {
		if id != unk && special[id] {
			continue
		}
		out = append(out, id)
	}
	if len(out) > maxIDsTokens {
		out = out[:maxIDsTokens]
	}
	return out
}

// Encode returns the ids a transformer model expects: special tokens
// included ([CLS] ... [SEP]), at most 512 ids, no padding.
func (t *Tokenizer) Encode(text string) []int32 {
	run := func(s string) []int32 {
		body := t.run(s)
		ids := make([]int32, 0, len(body)+len(t.wrap))
		ids = append(ids, t.wrap[:t.wrapAt]...)
		ids = append(ids, body...)
		return append(ids, t.wrap[t.wrapAt:]...)
	}
	ids := EncodeLong(t.pre.Apply(text), maxEncodeTokens, maxEncodeTokens+2, run)
	if len(ids) > maxEncodeTokens {
		// Keep the closing special token, as HF truncation does.
		last := ids[len(ids)-1]
		ids = append(ids[:maxEncodeTokens-1], last)
	}
	return ids
}

// run tokenises pre-normalised text, added tokens included.
func (t *Tokenizer) run(s string) []int32 {
	var segBuf [8]segment
	var ids []int32
	var pieces []Piece
	failed := false
	for _, seg := range splitLiterals(s, t.literals, segBuf[:0]) {
		if seg.id >= 0 {
			ids = append(ids, int32(seg.id))
			continue
		}
		words := func(w string) {
			var ok bool
			pieces, ok = t.vocab.WordPiece(pieces[:0], w, t.cfg.prefix, t.cfg.maxChars)
			if !ok {
				if !t.cfg.unkOK {
					failed = true // sugarme's WordPiece fails the whole text
				}
				ids = append(ids, int32(t.cfg.unk))
				return
			}
			for _, p := range pieces {
				ids = append(ids, int32(p.ID))
			}
		}
		if part := s[seg.start:seg.end]; t.cfg.needsSugarme(part) {
			t.cfg.sugarmeWords(s, seg.start, seg.end, words)
		} else {
			t.cfg.bertWords(part, words)
		}
	}
	if failed {
		return nil
	}
	return ids
}
