package embedcache

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// The default tokenizer's compact form: the same sugarme tokenizer, built
// without parsing the 700 KB tokenizer.json each process (gunzip, a JSON
// decode into interface{} maps, then converting them) — most of a hook's
// time with the built-in model. It holds the tokenizer.json with an empty
// vocabulary (a few KB of JSON, built into the same sugarme components) and
// the vocabulary as length-prefixed tokens in id order, which
// compactWordPiece reads in place (hence a string, not []byte). Generated
// from assets/tokenizer.json.gz; TestCompactTokenizerAsset keeps them in
// step (MEGAGIT_UPDATE_TOKENIZER=1 rewrites it) and TestCompactTokenizerIDs
// checks both forms give the same ids.
//
//go:embed assets/tokenizer.compact
var defaultTokenizerCompact string

// compactMagic starts a compact tokenizer; bump it when the layout changes.
const compactMagic = "megagit-tokenizer-compact-v1\n"

// compactTokenizer encodes a WordPiece tokenizer.json in the compact form.
// The vocabulary must be dense (ids 0..n-1), as BERT vocabularies are.
func compactTokenizer(raw []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	err := json.Unmarshal(raw, &top)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(top["model"], &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "WordPiece" {
		return nil, fmt.Errorf("model type %q: only WordPiece has a compact form", typ)
	}
	var vocab map[string]int
	if err := json.Unmarshal(m["vocab"], &vocab); err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	tokens := make([]string, len(vocab))
	seen := make([]bool, len(vocab))
	for tok, id := range vocab {
		if id < 0 || id >= len(tokens) || seen[id] {
			return nil, fmt.Errorf("vocab ids are not 0..%d", len(tokens)-1)
		}
		tokens[id], seen[id] = tok, true
	}
	m["vocab"] = json.RawMessage("{}")
	if top["model"], err = json.Marshal(m); err != nil {
		return nil, err
	}
	skeleton, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	var b bytes.Buffer
	b.WriteString(compactMagic)
	b.WriteString(hex.EncodeToString(sum[:]))
	b.WriteByte('\n')
	b.Write(binary.AppendUvarint(nil, uint64(len(skeleton))))
	b.Write(skeleton)
	b.Write(binary.AppendUvarint(nil, uint64(len(tokens))))
	for _, t := range tokens {
		b.Write(binary.AppendUvarint(nil, uint64(len(t))))
		b.WriteString(t)
	}
	return b.Bytes(), nil
}

var errCompact = errors.New("malformed compact tokenizer")

// parseCompactTokenizer builds the tokenizer a compact form describes, the
// way pretrained.FromReader builds it from the full tokenizer.json. The
// vocabulary's tokens stay substrings of data.
func parseCompactTokenizer(data string) (t *Tokenizer, err error) {
	rest, ok := strings.CutPrefix(data, compactMagic)
	if !ok || len(rest) < 65 || rest[64] != '\n' {
		return nil, errCompact
	}
	sha := rest[:64]
	skeletonStr, rest, ok := nextToken(rest[65:])
	if !ok {
		return nil, errCompact
	}
	skeleton := []byte(skeletonStr)
	count, k := uvarint(rest)
	if k <= 0 || count > uint64(len(rest)) {
		return nil, errCompact
	}
	wp, err := newCompactWordPiece(rest[k:], int(count))
	if err != nil {
		return nil, err
	}

	var hdr tokenizerHeader
	if err := json.Unmarshal(skeleton, &hdr); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var cfg *tokenizer.Config
	if err := json.Unmarshal(skeleton, &cfg); err != nil || cfg == nil {
		return nil, fmt.Errorf("parse: %v", err)
	}
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("unsupported tokenizer.json: %v", r)
		}
	}()
	// The WordPiece model as pretrained's createWordPiece makes it (which
	// passes on only unk_token and max_input_chars_per_word).
	if v, ok := cfg.Model["unk_token"].(string); ok {
		wp.unk = v
	}
	if v, ok := cfg.Model["max_input_chars_per_word"].(float64); ok {
		wp.maxChars = int(v)
	}
	tk := tokenizer.NewTokenizer(wp)
	n, err := pretrained.CreateNormalizer(cfg.Normalizer)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	tk.WithNormalizer(n)
	pre, err := pretrained.CreatePreTokenizer(cfg.PreTokenizer)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	tk.WithPreTokenizer(pre)
	post, err := pretrained.CreatePostProcessor(cfg.PostProcessor)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	tk.WithPostProcessor(post)
	dec, err := pretrained.CreateDecoder(cfg.Decoder)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	tk.WithDecoder(dec)
	special, added := pretrained.CreateAddedTokens(cfg.AddedTokens)
	if len(special) > 0 {
		tk.AddSpecialTokens(special)
	}
	if len(added) > 0 {
		tk.AddTokens(added)
	}
	return newTokenizer(tk, &hdr, sha), nil
}
