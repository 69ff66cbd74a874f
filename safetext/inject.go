package safetext

import "strings"

// Injected makes a skill's text (its name, description, path or body)
// safe to put in front of an agent: valid UTF-8, every Hidden character
// removed but newline and tab (a carriage return too), and each
// `<skill-used` written `&lt;skill-used`, so a report forged in a skill
// reads as text and never as the agent's own tag (the stop hook reads
// tags only from what the assistant wrote, but a model that copies an
// injected tag would write one). Clean text comes back unchanged.
func Injected(s string) string {
	if isInjectable(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && Hidden(r) {
			return -1
		}
		return r
	}, s)
	return neutraliseTags(s)
}

// tagName is what follows `<` in the report tag the stop hook reads.
const tagName = "skill-used"

// neutraliseTags writes the `<` of every `<skill-used` (in any case)
// as `&lt;`.
func neutraliseTags(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+1+len(tagName) <= len(s); i++ {
		if s[i] == '<' && strings.EqualFold(s[i+1:i+1+len(tagName)], tagName) {
			if b.Len() == 0 {
				b.Grow(len(s) + 8)
			}
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// isInjectable is Injected's fast path: printable ASCII, newlines and
// tabs, and no tag.
func isInjectable(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7F {
			return false
		}
		if c == '<' && i+1+len(tagName) <= len(s) && strings.EqualFold(s[i+1:i+1+len(tagName)], tagName) {
			return false
		}
	}
	return true
}
