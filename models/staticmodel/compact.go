package staticmodel

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The compact form of a WordPiece tokenizer.json: the file's sha256, the
// tokenizer.json with an empty vocabulary (a few KB of JSON: the
// normaliser, pre-tokenizer and added tokens), the token count, the
// vocabulary as length-prefixed tokens in id order (its length first) and
// Vocab's two tables (vocabIndex), all read in place. It spares each
// process parsing the 700 KB tokenizer.json and indexing 30,000 tokens.
//
// compactMagic starts a compact tokenizer; bump it when the layout changes.
const compactMagic = "megagit-tokenizer-compact-v2\n"

var errCompact = errors.New("malformed compact tokenizer")

// EncodeCompact encodes a WordPiece tokenizer.json in the compact form;
// sha is the file's sha256 in hex (the caller hashes, so this package
// links no crypto). The vocabulary must be dense (ids 0..n-1), as BERT
// vocabularies are.
func EncodeCompact(raw []byte, sha string) ([]byte, error) {
	if len(sha) != 64 {
		return nil, fmt.Errorf("sha256 %q is not 64 hex digits", sha)
	}
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
	list, offs, sorted, ok := vocabIndex(tokens)
	if !ok {
		return nil, errors.New("vocab: a token twice, or too large")
	}
	var b bytes.Buffer
	b.WriteString(compactMagic)
	b.WriteString(sha)
	b.WriteByte('\n')
	b.Write(binary.AppendUvarint(nil, uint64(len(skeleton))))
	b.Write(skeleton)
	b.Write(binary.AppendUvarint(nil, uint64(len(tokens))))
	b.Write(binary.AppendUvarint(nil, uint64(len(list))))
	b.Write(list)
	b.Write(offs)
	b.Write(sorted)
	return b.Bytes(), nil
}

// ParseCompact builds the tokenizer a compact form describes. The
// vocabulary's tokens stay substrings of data.
func ParseCompact(data string) (*Tokenizer, error) {
	rest, ok := strings.CutPrefix(data, compactMagic)
	if !ok || len(rest) < 65 || rest[64] != '\n' {
		return nil, errCompact
	}
	sha := rest[:64]
	skeleton, rest, ok := nextToken(rest[65:])
	if !ok {
		return nil, errCompact
	}
	count, k := uvarint(rest)
	if k <= 0 || count > uint64(len(rest)) {
		return nil, errCompact
	}
	list, rest, ok := nextToken(rest[k:])
	if !ok || uint64(len(rest)) != 8*count {
		return nil, errCompact
	}
	vocab, err := openVocab(list, rest[:4*count], rest[4*count:], int(count))
	if err != nil {
		return nil, err
	}
	hdr, err := ParseHeader([]byte(skeleton))
	if err != nil {
		return nil, err
	}
	return newTokenizer(vocab, hdr, sha)
}
