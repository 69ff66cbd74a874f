package staticmodel

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// PreNorm is the normalisation megagit applies before a BERT tokenizer
// runs (see Header.PreNorm). The zero value changes nothing but invalid
// UTF-8.
type PreNorm struct {
	lowercase bool     // lowercase the input
	strip     bool     // NFD + drop combining marks
	literals  []string // added tokens matched before normalisation ("[CLS]")
}

// Apply normalises s; invalid UTF-8 becomes U+FFFD first.
func (p PreNorm) Apply(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !p.strip && !p.lowercase {
		return s
	}
	var b strings.Builder
	for {
		at, lit := -1, ""
		for _, l := range p.literals {
			if i := strings.Index(s, l); i >= 0 && (at < 0 || i < at || (i == at && len(l) > len(lit))) {
				at, lit = i, l
			}
		}
		if at < 0 {
			if b.Len() == 0 {
				return p.part(s)
			}
			b.WriteString(p.part(s))
			return b.String()
		}
		b.WriteString(p.part(s[:at]))
		b.WriteString(lit)
		s = s[at+len(lit):]
	}
}

func (p PreNorm) part(s string) string {
	if p.strip && !isASCII(s) {
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
	if p.lowercase {
		s = strings.ToLower(s)
	}
	return s
}

// Equal reports whether p and q normalise alike.
func (p PreNorm) Equal(q PreNorm) bool {
	if p.lowercase != q.lowercase || p.strip != q.strip || len(p.literals) != len(q.literals) {
		return false
	}
	for i := range p.literals {
		if p.literals[i] != q.literals[i] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// EncodeLong runs a tokenisation over a normalised text, cutting long texts
// short: it first tokenises a prefix cut at whitespace (the tokens of such a
// prefix are a prefix of the full tokens) and only falls back to the whole
// text when the prefix yields fewer than need tokens.
func EncodeLong(text string, limit, need int, run func(string) []int32) []int32 {
	if cut := limit * 16; len(text) > cut {
		if i := strings.LastIndexAny(text[:cut], " \t\n\r"); i > 0 {
			if ids := run(text[:i]); len(ids) >= need {
				return ids
			}
		}
	}
	return run(text)
}
