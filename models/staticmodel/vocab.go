package staticmodel

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
)

// Vocab is a WordPiece vocabulary over the tokens of a compact tokenizer,
// built for load cost, which every hook call pays. The tokens stay where
// they are in the embedded asset, and so do the two tables that find them:
// each token's offset by id, and the ids in token order, which a lookup
// searches by bisection. Opening it reads neither table, so a prompt
// touches only the few pages its words need.
type Vocab struct {
	list   string // uvarint-length-prefixed tokens in id order
	offs   string // by id, 4 bytes little-endian: where its length prefix starts in list
	sorted string // 4 bytes little-endian per id, in the order of their tokens
	count  int
}

// vocabIndex lays out the tables of tokens (in id order, no token twice):
// the length-prefixed list, the offsets and the ids in token order.
func vocabIndex(tokens []string) (list, offs, sorted []byte, ok bool) {
	ids := make([]uint32, len(tokens))
	for id, t := range tokens {
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(list)))
		list = binary.AppendUvarint(list, uint64(len(t)))
		list = append(list, t...)
		ids[id] = uint32(id)
	}
	slices.SortFunc(ids, func(a, b uint32) int { return strings.Compare(tokens[a], tokens[b]) })
	for i, id := range ids {
		if i > 0 && tokens[id] == tokens[ids[i-1]] {
			return nil, nil, nil, false // the same token twice
		}
		sorted = binary.LittleEndian.AppendUint32(sorted, id)
	}
	return list, offs, sorted, len(list) <= math.MaxUint32
}

// newVocab indexes count length-prefixed tokens (ids 0..count-1) read from
// list, for a compact form without the tables.
func newVocab(list string, count int) (*Vocab, error) {
	if count < 0 || count > len(list) {
		return nil, errCompact
	}
	tokens := make([]string, count)
	rest := list
	for id := range tokens {
		tok, r, ok := nextToken(rest)
		if !ok {
			return nil, errCompact
		}
		tokens[id], rest = tok, r
	}
	if rest != "" {
		return nil, errCompact
	}
	l, offs, sorted, ok := vocabIndex(tokens)
	if !ok {
		return nil, errCompact
	}
	return openVocab(string(l), string(offs), string(sorted), count)
}

// openVocab is a vocabulary over tables vocabIndex laid out, read in
// place. Only their sizes are checked here; a lookup never reads out of
// bounds whatever they hold (the embedded asset's are tested whole).
func openVocab(list, offs, sorted string, count int) (*Vocab, error) {
	if count < 0 || len(offs) != 4*count || len(sorted) != 4*count || len(list) > math.MaxUint32 {
		return nil, errCompact
	}
	return &Vocab{list: list, offs: offs, sorted: sorted, count: count}, nil
}

// Len is the number of tokens.
func (v *Vocab) Len() int { return v.count }

// Token is the text of id, or false when id is out of range.
func (v *Vocab) Token(id int) (string, bool) {
	if id < 0 || id >= v.count {
		return "", false
	}
	return v.token(id), true
}

// ID is the id of tok, or false when tok is not in the vocabulary.
func (v *Vocab) ID(tok string) (int, bool) { return v.find(tok) }

// token is the text of id, which must be in range ("" for a bad offset).
func (v *Vocab) token(id int) string {
	off := le32(v.offs, id)
	if uint64(off) >= uint64(len(v.list)) {
		return ""
	}
	tok, _, _ := nextToken(v.list[off:])
	return tok
}

// find bisects the ids in token order for tok.
func (v *Vocab) find(tok string) (int, bool) {
	lo, hi := 0, v.count
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		id := int(le32(v.sorted, mid))
		if id >= v.count {
			return 0, false
		}
		switch c := strings.Compare(v.token(id), tok); {
		case c == 0:
			return id, true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// le32 is the i-th little-endian uint32 of s.
func le32(s string, i int) uint32 {
	s = s[4*i : 4*i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// idBytes is ID over a byte slice.
func (v *Vocab) idBytes(tok []byte) (int, bool) { return v.find(string(tok)) }

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
