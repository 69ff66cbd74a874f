package embedcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"sync"

	"github.com/sugarme/tokenizer"
)

// compactWordPiece is sugarme's WordPiece model (wordpiece.WordPiece, the
// same greedy longest-match Tokenize) over a compact tokenizer's
// vocabulary, built for load cost, which every hook call pays. The tokens
// stay where they are in the embedded asset and are found through an
// open-addressing table of ids: about 400 KB for 30,522 tokens, filled in
// one pass, where wordpiece.New needs a map[string]int, a map[int]string
// grown from empty and a fresh string per token (5.5 MB, 31,000
// allocations, most of a process's tokenizer load).
type compactWordPiece struct {
	list     string   // uvarint-length-prefixed tokens in id order
	offs     []uint32 // by id: where the token's length prefix starts in list
	slots    []uint32 // open addressing by hash: id+1, 0 = empty
	seed     maphash.Seed
	unk      string
	prefix   string // of a word's continuing pieces
	maxChars int    // longer words are one unknown token

	vocab func() map[string]int // GetVocab, built on first use
}

// newCompactWordPiece indexes count length-prefixed tokens (ids 0..count-1)
// read from list, with wordpiece.New's defaults: "[UNK]", "##" and 100.
func newCompactWordPiece(list string, count int) (*compactWordPiece, error) {
	if count < 0 || count > len(list) || len(list) > math.MaxUint32 {
		return nil, errCompact
	}
	size := 16
	for size < 2*count {
		size <<= 1
	}
	wp := &compactWordPiece{list: list, offs: make([]uint32, count), slots: make([]uint32, size),
		seed: maphash.MakeSeed(), unk: "[UNK]", prefix: "##", maxChars: 100}
	off := 0
	for id := range count {
		tok, rest, ok := nextToken(list[off:])
		if !ok {
			return nil, errCompact
		}
		wp.offs[id] = uint32(off)
		off = len(list) - len(rest)
		i, found := wp.find(tok)
		if found {
			return nil, errCompact // the same token twice
		}
		wp.slots[i] = uint32(id) + 1
	}
	if off != len(list) {
		return nil, errCompact
	}
	wp.vocab = sync.OnceValue(func() map[string]int {
		m := make(map[string]int, count)
		for id := range count {
			m[wp.token(id)] = id
		}
		return m
	})
	return wp, nil
}

// token is the text of id, which must be in range.
func (wp *compactWordPiece) token(id int) string {
	tok, _, _ := nextToken(wp.list[wp.offs[id]:])
	return tok
}

// find returns the slot holding tok, or the empty slot where it would go.
func (wp *compactWordPiece) find(tok string) (slot int, found bool) {
	mask := len(wp.slots) - 1
	for i := int(maphash.String(wp.seed, tok)) & mask; ; i = (i + 1) & mask {
		v := wp.slots[i]
		if v == 0 {
			return i, false
		}
		if wp.token(int(v-1)) == tok {
			return i, true
		}
	}
}

// nextToken splits a uvarint-length-prefixed token off s.
func nextToken(s string) (tok, rest string, ok bool) {
	n, k := uvarint(s)
	if k <= 0 || n > uint64(len(s)-k) {
		return "", s, false
	}
	return s[k : k+int(n)], s[k+int(n):], true
}

// uvarint is binary.Uvarint over a string: the value and the bytes it
// took, or k <= 0 when s does not start with one.
func uvarint(s string) (v uint64, k int) {
	for shift := uint(0); k < len(s) && k < binary.MaxVarintLen64; shift += 7 {
		b := s[k]
		k++
		if b < 0x80 {
			if k == binary.MaxVarintLen64 && b > 1 {
				return 0, -k // overflow, as binary.Uvarint
			}
			return v | uint64(b)<<shift, k
		}
		v |= uint64(b&0x7f) << shift
	}
	return 0, 0
}

// Tokenize implements tokenizer.Model exactly as wordpiece.WordPiece does:
// the longest vocabulary prefix, then "##"-prefixed continuations; a word
// with a piece outside the vocabulary (or over maxChars runes) is one
// unknown token. Offsets count runes, as sugarme's do.
func (wp *compactWordPiece) Tokenize(sequence string) ([]tokenizer.Token, error) {
	chars := []rune(sequence)
	unknown := func() ([]tokenizer.Token, error) {
		id, ok := wp.TokenToId(wp.unk)
		if !ok {
			return nil, fmt.Errorf("WordPiece error: Missing [UNK] token. Unknown token value %q not found in the vocab", wp.unk)
		}
		return []tokenizer.Token{{Value: wp.unk, Id: id, Offsets: []int{0, len(chars)}}}, nil
	}
	if len(chars) > wp.maxChars {
		return unknown()
	}
	var out []tokenizer.Token
	for start := 0; start < len(chars); {
		end := len(chars)
		found := false
		for ; start < end; end-- {
			sub := string(chars[start:end])
			if start > 0 {
				sub = wp.prefix + sub
			}
			if id, ok := wp.TokenToId(sub); ok {
				out = append(out, tokenizer.Token{Id: id, Value: sub, Offsets: []int{start, end}})
				found = true
				break
			}
		}
		if !found {
			return unknown()
		}
		start = end
	}
	return out, nil
}

// TokenToId implements tokenizer.Model.
func (wp *compactWordPiece) TokenToId(token string) (int, bool) {
	i, ok := wp.find(token)
	if !ok {
		return 0, false
	}
	return int(wp.slots[i] - 1), true
}

// IdToToken implements tokenizer.Model.
func (wp *compactWordPiece) IdToToken(id int) (string, bool) {
	if id < 0 || id >= len(wp.offs) {
		return "", false
	}
	return wp.token(id), true
}

// GetVocab implements tokenizer.Model; the first call builds the map.
func (wp *compactWordPiece) GetVocab() map[string]int { return wp.vocab() }

// GetVocabSize implements tokenizer.Model.
func (wp *compactWordPiece) GetVocabSize() int { return len(wp.offs) }

// Save implements tokenizer.Model; megagit never writes a vocabulary out.
func (wp *compactWordPiece) Save(string, ...string) error {
	return errors.New("compact WordPiece model: Save is not supported")
}
