package staticmodel

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The BERT pipeline as sugarme/tokenizer v0.3.0 runs it (the reference
// embedcache checks this package against): literal added tokens are split
// off, each other part goes through BertNormalizer, BertPreTokenizer and
// WordPiece. Its quirks are kept on purpose, so the ids stay the same.

// bertConfig is what the pipeline needs from tokenizer.json.
type bertConfig struct {
	clean, chinese, lower, strip bool // sugarme's BertNormalizer flags
	unk                          int
	unkOK                        bool
	maxChars                     int
	prefix                       string
}

// literal is an added token matched in the raw text, in pattern order.
type literal struct {
	text string
	id   int
}

// literalMatch is one occurrence of literal idx at [start, end).
type literalMatch struct{ idx, start, end int }

type byStart []literalMatch

func (s byStart) Len() int           { return len(s) }
func (s byStart) Less(i, j int) bool { return s[i].start < s[j].start }
func (s byStart) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

type byIdx []literalMatch

func (s byIdx) Len() int           { return len(s) }
func (s byIdx) Less(i, j int) bool { return s[i].idx < s[j].idx }
func (s byIdx) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// segment is a part of the text: an added token (id >= 0) or text to
// normalise and tokenise (id -1).
type segment struct {
	id         int
	start, end int
}

// splitLiterals is sugarme's AddedVocabulary.findMatches: every occurrence
// of every literal, sorted by start and then (unstably) by pattern, and
// kept in pattern order, skipping those that start before the end of the
// last one kept; so an added token can be lost to one of a lower pattern
// later in the text. The same sort calls on the same data give the same
// order.
func splitLiterals(s string, lits []literal, dst []segment) []segment {
	if len(s) == 0 {
		return append(dst, segment{-1, 0, 0})
	}
	var ms []literalMatch
	for idx, l := range lits {
		for off := 0; ; {
			i := strings.Index(s[off:], l.text)
			if i < 0 {
				break
			}
			ms = append(ms, literalMatch{idx, off + i, off + i + len(l.text)})
			off += i + len(l.text)
		}
	}
	if len(ms) == 0 {
		return append(dst, segment{-1, 0, len(s)})
	}
	sort.Sort(byStart(ms))
	sort.Sort(byIdx(ms))
	var kept []literalMatch
	for i, cur := 0, 0; i < len(ms); i++ {
		m := ms[i]
		if m.start < cur {
			continue
		}
		if i+1 < len(ms) {
			rest := ms[i:]
			sort.Sort(byIdx(rest))
			kept = append(kept, rest[0])
		} else {
			kept = append(kept, m)
		}
		cur = m.end
	}
	start := 0
	for _, m := range kept {
		if start < m.start {
			dst = append(dst, segment{-1, start, m.start})
		}
		dst = append(dst, segment{lits[m.idx].id, m.start, m.end})
		start = m.end
	}
	if start != len(s) {
		dst = append(dst, segment{-1, start, len(s)})
	}
	return dst
}

// bertWords calls word for each word of s after BertNormalizer (clean
// text, CJK padding, lowercase, strip accents as configured) and
// BertPreTokenizer (split on whitespace, isolate punctuation).
func (c *bertConfig) bertWords(s string, word func(string)) {
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			word(b.String())
			b.Reset()
		}
	}
	var one [4]byte
	for _, r := range s {
		if c.clean && (r == 0 || r == 0xfffd || isControl(r)) {
			continue
		}
		if c.chinese && isChinese(r) {
			flush()
			word(string(r))
			continue
		}
		if c.lower {
			r = unicode.ToLower(r)
		}
		if c.strip && unicode.Is(unicode.Mn, r) {
			continue
		}
		switch {
		case isSpace(r):
			flush()
		case isPunctuation(r):
			flush()
			word(string(utf8.AppendRune(one[:0], r)))
		default:
			b.WriteRune(r)
		}
	}
	flush()
}

// isSpace is the pre-tokenizer's `\s` (Go regexp: ASCII whitespace).
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return false
}

// isControl is BERT's control class: Cc and Cf but tab, newline, CR.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf)
}

// bpunc is BERT's ASCII punctuation: every non-alphanumeric printable.
var bpunc = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x0021, Hi: 0x002f, Stride: 1},
		{Lo: 0x003a, Hi: 0x0040, Stride: 1},
		{Lo: 0x005b, Hi: 0x0060, Stride: 1},
		{Lo: 0x007b, Hi: 0x007e, Stride: 1},
	},
	LatinOffset: 4,
}

func isPunctuation(r rune) bool { return unicode.In(r, bpunc, unicode.P) }

// cjk is the CJK Unified Ideographs blocks BERT pads with spaces, as
// sugarme's table has them: its R16 ranges are out of order, so
// unicode.Is's linear scan stops at 0x4e00 and never finds Extension A
// (U+3400–U+4DBF); and its fourth R32 range starts at 2B820, not 2B920.
// Keep the order: it is the behaviour.
var cjk = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x4e00, Hi: 0x9fff, Stride: 1},
		{Lo: 0x3400, Hi: 0x4dbf, Stride: 1},
		{Lo: 0xf900, Hi: 0xfaff, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x20000, Hi: 0x2a6df, Stride: 1},
		{Lo: 0x2a700, Hi: 0x2b73f, Stride: 1},
		{Lo: 0x2b740, Hi: 0x2b81f, Stride: 1},
		{Lo: 0x2b820, Hi: 0x2ceaf, Stride: 1},
		{Lo: 0x2f800, Hi: 0x2fa1f, Stride: 1},
	},
}

func isChinese(r rune) bool { return unicode.Is(cjk, r) }
