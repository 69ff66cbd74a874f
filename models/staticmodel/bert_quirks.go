package staticmodel

import (
	"strings"

	"github.com/sugarme/tokenizer/normalizer"
)

// needsSugarme reports whether cleaning s removes a character (NUL,
// U+FFFD, a control or format character). sugarme's NormalizedString then
// loses track of its alignments (a removed multi-byte character at the
// start of a part doubles the text: "\ufeffabc" normalises to "abcabc"),
// so such a part takes the slow path, sugarme's own normaliser.
func (c *bertConfig) needsSugarme(s string) bool {
	if !c.clean {
		return false
	}
	for _, r := range s {
		if r == 0 || r == 0xfffd || isControl(r) {
			return true
		}
	}
	return false
}

// sugarmeWords is bertWords done by sugarme's normalizer package, as
// sugarme's tokenizer does it: text is the whole text run tokenises, the
// part is [start, end) of it. Where sugarme panics (its Slice does on
// some such parts, e.g. "\ufffdキ\x00") there is no reference to follow,
// and the part gets bertWords' words.
func (c *bertConfig) sugarmeWords(text string, start, end int, word func(string)) {
	words, ok := c.trySugarme(text, start, end)
	if !ok {
		c.bertWords(text[start:end], word)
		return
	}
	for _, w := range words {
		word(w)
	}
}

func (c *bertConfig) trySugarme(text string, start, end int) (words []string, ok bool) {
	defer func() {
		if recover() != nil {
			words, ok = nil, false
		}
	}()
	c.sugarmeParts(text, start, end, func(w string) { words = append(words, w) })
	return words, true
}

func (c *bertConfig) sugarmeParts(text string, start, end int, word func(string)) {
	bn := normalizer.NewBertNormalizer(c.clean, c.lower, c.chinese, c.strip)
	seg := normalizer.NewNormalizedFrom(text).Slice(normalizer.NewRange(start, end, normalizer.NormalizedTarget))
	if seg == nil || seg.GetNormalized() == "" {
		return
	}
	n, err := bn.Normalize(seg)
	if err != nil || n == nil {
		return
	}
	// the added-token pass over the normalised part (no normalised added
	// tokens: one slice of the whole)
	n = n.Slice(normalizer.NewRange(0, len(n.GetNormalized()), normalizer.NormalizedTarget))
	if n == nil || n.GetNormalized() == "" {
		return
	}
	for _, ws := range n.Split(normalizer.NewRegexpPattern(`\s+`), normalizer.RemovedBehavior) {
		if ws.GetNormalized() == "" {
			continue
		}
		for _, p := range ws.Split(normalizer.NewFnPattern(isPunctuation), normalizer.IsolatedBehavior) {
			if w := p.GetNormalized(); w != "" {
				word(strings.Clone(w))
			}
		}
	}
}
