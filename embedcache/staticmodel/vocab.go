package staticmodel

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// Vocab is a WordPiece vocabulary over the tokens of a compact tokenizer,
// built for load cost, which every hook call pays. The tokens stay where
// they are in the embedded asset and are found through an open-addressing
// table of ids: about 400 KB for 30,522 tokens, filled in one pass, where a
// map[string]int needs a fresh string per token and grows from empty.
type Vocab struct {
	list  string   // uvarint-length-prefixed tokens in id order
	offs  []uint32 // by id: where the token's length prefix starts in list
	slots []uint32 // open addressing by hash: id+1, 0 = empty
	seed  maphash.Seed
}

// newVocab indexes count length-prefixed tokens (ids 0..count-1) read from list.
func newVocab(list string, count int) (*Vocab, error) {
	if count < 0 || count > len(list) || len(list) > math.MaxUint32 {
		return nil, errCompact
	}
	size := 16
	for size < 2*count {
		size <<= 1
	}
	v := &Vocab{list: list, offs: make([]uint32, count), slots: make([]uint32, size), seed: maphash.MakeSeed()}
	off := 0
	for id := range count {
		tok, rest, ok := nextToken(list[off:])
		if !ok {
			return nil, errCompact
		}
		v.offs[id] = uint32(off)
		off = len(list) - len(rest)
		i, found := v.find(tok)
		if found {
			return nil, errCompact // the same token twice
		}
		v.slots[i] = uint32(id) + 1
	}
	if off != len(list) {
		return nil, errCompact
	}
	return v, nil
}

// Len is the number of tokens.
func (v *Vocab) Len() int { return len(v.offs) }

// Token is the text of id, or false when id is out of range.
func (v *Vocab) Token(id int) (string, bool) {
	if id < 0 || id >= len(v.offs) {
		return "", false
	}
	return v.token(id), true
}

// ID is the id of tok, or false when tok is not in the vocabulary.
func (v *Vocab) ID(tok string) (int, bool) {
	i, ok := v.find(tok)
	if !ok {
		return 0, false
	}
	return int(v.slots[i] - 1), true
}

// token is the text of id, which must be in range.
func (v *Vocab) token(id int) string {
	tok, _, _ := nextToken(v.list[v.offs[id]:])
	return tok
}

// find returns the slot holding tok, or the empty slot where it would go.
func (v *Vocab) find(tok string) (slot int, found bool) {
	mask := len(v.slots) - 1
	for i := int(maphash.String(v.seed, tok)) & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return i, false
		}
		if v.token(int(s-1)) == tok {
			return i, true
		}
	}
}

// idBytes is ID over a byte slice, without converting it.
func (v *Vocab) idBytes(tok []byte) (int, bool) {
	mask := len(v.slots) - 1
	for i := int(maphash.Bytes(v.seed, tok)) & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return 0, false
		}
		if v.token(int(s-1)) == string(tok) {
			return int(s - 1), true
		}
	}
}

// Piece is one word piece WordPiece found: its id and where it lies in the
// word, in runes.
type Piece struct {
	ID         int
	Start, End int
}

// WordPiece is the greedy longest-match split of one word (as sugarme's and
// HF's WordPiece do it): the longest vocabulary prefix, then
// prefix-marked continuations ("##"). It appends the pieces to dst, or
// returns ok = false when the word is over maxChars runes or a part of it is
// in no piece: the word is then one unknown token.
func (v *Vocab) WordPiece(dst []Piece, word string, prefix string, maxChars int) (pieces []Piece, ok bool) {
	// byte offsets of the word's runes, and one past the end
	var offBuf [64]int
	offs := offBuf[:0]
	for i := range word {
		offs = append(offs, i)
	}
	n := len(offs)
	if n > maxChars {
		return dst, false
	}
	offs = append(offs, len(word))
	var bufArr [128]byte
	buf := bufArr[:0]
	start0 := len(dst)
	for start := 0; start < n; {
		end := n
		found := false
		for ; start < end; end-- {
			buf = buf[:0]
			if start > 0 {
				buf = append(buf, prefix...)
			}
			buf = append(buf, word[offs[start]:offs[end]]...)
			if id, ok := v.idBytes(buf); ok {
				dst = append(dst, Piece{ID: id, Start: start, End: end})
				found = true
				break
			}
		}
		if !found {
			return dst[:start0], false
		}
		start = end
	}
	return dst, true
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
