package ranker

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Tokenize turns text into index terms: lower-case runs of letters and
// digits, without Snowball English stopwords, Snowball-stemmed. Queries and
// skills go through the same function so their terms meet.
func Tokenize(text string) []string { return stems(nil).tokenize(text) }

// stems remembers the stems of the words an index build has met (""
// for a stopword): a catalog repeats a small vocabulary many times, and
// stemming is most of the build's time. A nil stems remembers nothing.
type stems map[string]string

func (m stems) stem(w string) string {
	if s, ok := m[w]; ok {
		return s
	}
	s := ""
	if !english.IsStopWord(w) {
		s = english.Stem(w, false)
	}
	if m != nil {
		m[w] = s
	}
	return s
}

func (m stems) tokenize(text string) []string {
	var out []string
	words(text, func(w string) {
		if s := m.stem(w); s != "" {
			out = append(out, s)
		}
	})
	return out
}

// words calls f with each word of text (a run of letters and digits),
// lowercased, in order.
func words(text string, f func(string)) {
	WordSpans(text, func(start, end int) { f(strings.ToLower(text[start:end])) })
}

// WordSpans calls f with the byte offsets [start, end) of each of text's
// words as Tokenize splits them: runs of letters and digits.
func WordSpans(text string, f func(start, end int)) {
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(start, i)
			start = -1
		}
	}
	if start >= 0 {
		f(start, len(text))
	}
}

// uniqueTerms keeps the first occurrence of each term, in order, so a query
// that repeats a word does not count it twice.
func uniqueTerms(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
