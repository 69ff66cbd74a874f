package skillfile

import (
	"strings"
)

// Headings lists the text of the body's ATX headings (# to ######) outside
// fenced code blocks; the ranker indexes them as a field of their own.
func (f *File) Headings() []string {
	var out []string
	fmEachBodyLine(f.Body(), func(line string) {
		if h, ok := fmHeading(line); ok && h != "" {
			out = append(out, h)
		}
	})
	return out
}

// triggerPrefixes start the lines and sentences that say when to use a skill.
var triggerPrefixes = []string{
	"use when", "use this skill when", "use this when", "triggers:", "trigger:",
	"when to use", "this skill should be used when",
}

// Triggers lists the phrases that say when a skill applies, which route
// queries better than the rest of the body. They are, in order and without
// duplicates:
//   - every sentence of the when_to_use field (Claude Code's), then
//     description sentences starting with a trigger prefix ("Use when",
//     "Use this skill when", "Use this when", "Triggers:", "Trigger:",
//     "When to use", "This skill should be used when"; case-insensitive);
//   - body lines (outside fenced code) starting with one of those prefixes
//     after optional list bullets and ** or __ emphasis;
//   - list items under a heading containing "when to use" or "triggers",
//     up to the next heading.
//
// Bullets and leading emphasis markers are removed from what is returned;
// a bare prefix ("Use this skill when:") is left out.
func (f *File) Triggers() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if bare := strings.ToLower(strings.TrimRight(s, ": ")); bare == "" || fmIsBarePrefix(bare) {
			return // "Use this skill when:" says nothing; the list under it does
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range fmSentences(f.Description()) {
		if t := fmStripMarkers(s); fmIsTrigger(t) {
			add(t)
		}
	}
	for _, s := range fmSentences(f.WhenToUse()) {
		add(fmStripMarkers(s)) // every sentence of when_to_use says when
	}
	inSection := false
	fmEachBodyLine(f.Body(), func(line string) {
		if h, ok := fmHeading(line); ok {
			l := strings.ToLower(h)
			inSection = strings.Contains(l, "when to use") || strings.Contains(l, "triggers")
			return
		}
		item, isBullet := fmBullet(line)
		if t := fmStripMarkers(item); fmIsTrigger(t) || (inSection && isBullet) {
			add(t)
		}
	})
	return out
}

func fmIsBarePrefix(lower string) bool {
	for _, p := range triggerPrefixes {
		if lower == strings.TrimRight(p, ":") {
			return true
		}
	}
	return false
}

func fmIsTrigger(s string) bool {
	l := strings.ToLower(s)
	for _, p := range triggerPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// fmEachBodyLine calls fn for every line outside ``` and ~~~ fenced blocks
// (fence lines themselves included in neither).
func fmEachBodyLine(body string, fn func(line string)) {
	var fence string // the opening fence run while inside a block
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		t := fmTrimIndent(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			n := len(t) - len(strings.TrimLeft(t, t[:1]))
			fence = t[:n]
			continue
		}
		fn(line)
	}
}

// fmTrimIndent drops up to three leading spaces, as CommonMark allows
// before headings and fences.
func fmTrimIndent(line string) string {
	for i := 0; i < 3 && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
	return line
}

// fmHeading returns the text of an ATX heading line, without the #'s.
func fmHeading(line string) (string, bool) {
	t := fmTrimIndent(line)
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
		return "", false
	}
	text := strings.TrimSpace(t[n:])
	if closing := strings.TrimRight(text, "#"); closing == "" {
		text = ""
	} else if strings.HasSuffix(closing, " ") || strings.HasSuffix(closing, "\t") {
		text = strings.TrimSpace(closing)
	}
	return text, true
}

// fmBullet strips a list marker ("-", "*", "+", "1." or "1)") and reports
// whether there was one; other lines come back trimmed.
func fmBullet(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimSpace(t[2:]), true
	}
	d := len(t) - len(strings.TrimLeft(t, "0123456789"))
	if d > 0 && d < 10 && len(t) > d+1 && (t[d] == '.' || t[d] == ')') && (t[d+1] == ' ' || t[d+1] == '\t') {
		return strings.TrimSpace(t[d+2:]), true
	}
	return t, false
}

// fmStripMarkers removes leading emphasis markers and, when the text
// opened with "**" or "__", the matching closing marker of a lead-in like
// "**Use when:**".
func fmStripMarkers(s string) string {
	s = strings.TrimSpace(s)
	lead := ""
	for _, m := range []string{"**", "__", "*", "_"} {
		if strings.HasPrefix(s, m) {
			lead, s = m, strings.TrimSpace(s[len(m):])
			break
		}
	}
	if lead == "**" || lead == "__" {
		if i := strings.Index(s, lead); i >= 0 {
			s = s[:i] + s[i+len(lead):]
		}
	}
	return strings.TrimSpace(s)
}

// fmSentences splits text after ".", "!" or "?" followed by a space.
func fmSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(text); i++ {
		if strings.ContainsRune(".!?", rune(text[i])) && text[i+1] == ' ' {
			out = append(out, text[start:i+1])
			start = i + 2
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
