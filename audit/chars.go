package audit

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// charNames are the names a finding gives the characters it reports.
var charNames = map[rune]string{
	0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0B: "VT", 0x1B: "ESC", 0x7F: "DEL", 0x9B: "CSI", 0x9D: "OSC",
	0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO",
	0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI",
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
	0x200E: "LRM", 0x200F: "RLM", 0x061C: "ALM", 0x180E: "MONGOLIAN VOWEL SEPARATOR",
	0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES",
	0x2063: "INVISIBLE SEPARATOR", 0x2064: "INVISIBLE PLUS", 0xFEFF: "BYTE ORDER MARK",
}

// charName is "ESC (U+001B)".
func charName(r rune) string {
	if n, ok := charNames[r]; ok {
		return fmt.Sprintf("%s (U+%04X)", n, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// charRule says which rule r falls under, and how severe it is in a
// file (script: a script may print colours with ESC), "" for none. prev
// and next are its neighbours (a joiner between two ASCII characters
// only hides; in an emoji or a script that joins letters it is needed).
func charRule(r, prev, next rune, atStart, script bool) (string, Severity) {
	switch {
	case r == '\t', r == '\n', r == '\r', r == '\f':
		return "", ""
	case r < 0x20, r >= 0x7F && r < 0xA0:
		if script {
			return RuleControl, Medium
		}
		return RuleControl, High
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return RuleBidi, High
	case r >= 0xE0000 && r <= 0xE007F:
		return RuleInvisible, High
	case r == 0xFEFF && atStart:
		return "", "" // a byte-order mark opening a file
	case r == 0x200B, r == 0x200E, r == 0x200F, r == 0x061C, r == 0x180E,
		r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
		return RuleInvisible, Medium
	case r == 0x200C || r == 0x200D:
		if prev > 0x20 && prev < 0x7F && next > 0x20 && next < 0x7F {
			return RuleInvisible, Medium
		}
	}
	return "", ""
}

// charLine is what one line holds of one rule.
type charLine struct {
	sev   Severity
	names []string
	tags  strings.Builder // the ASCII tag characters spell
}

// chars reports the control, bidi and invisible characters of text, one
// finding per line and rule, at most maxPerRule lines of each rule (the
// last one says how many more lines hold them).
func chars(file, text string, ix *lineIndex, script bool, where string) []Finding {
	var out []Finding
	count := map[string]int{}
	line := 0
	cur := map[string]*charLine{}
	flush := func() {
		for _, r := range Rules {
			c := cur[r.ID]
			if c == nil {
				continue
			}
			count[r.ID]++
			switch n := count[r.ID]; {
			case n <= maxPerRule:
				msg := strings.Join(c.names, ", ")
				if c.tags.Len() > 0 {
					msg += fmt.Sprintf(" spelling %q", c.tags.String())
				}
				out = append(out, Finding{File: file, Line: line, Rule: r.ID, Severity: c.sev, Message: where + msg + " " + charWhy[r.ID]})
			}
		}
		cur = map[string]*charLine{}
	}
	prev := rune(0)
	for i, r := range text {
		if r == utf8.RuneError {
			prev = r
			continue
		}
		l := ix.line(i)
		if l != line {
			flush()
			line = l
		}
		next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
		id, sev := charRule(r, prev, next, i == 0, script)
		prev = r
		if id == "" {
			continue
		}
		c := cur[id]
		if c == nil {
			c = &charLine{}
			cur[id] = c
		}
		if sev.rank() > c.sev.rank() {
			c.sev = sev
		}
		if r >= 0xE0000 && r <= 0xE007F {
			if a := r - 0xE0000; a >= 0x20 && a < 0x7F {
				c.tags.WriteRune(a)
			}
			if len(c.names) == 0 || c.names[len(c.names)-1] != "tag characters (U+E0000–U+E007F)" {
				c.names = append(c.names, "tag characters (U+E0000–U+E007F)")
			}
			continue
		}
		if n := charName(r); !contains(c.names, n) {
			c.names = append(c.names, n)
		}
	}
	flush()
	for _, r := range Rules {
		if n := count[r.ID]; n > maxPerRule {
			last := &out[lastIndex(out, r.ID)]
			last.Message += fmt.Sprintf(" (and %d more line(s) of this file)", n-maxPerRule)
		}
	}
	return out
}

// charWhy ends a character finding's message.
var charWhy = map[string]string{
	RuleControl:   "(a terminal acts on it instead of showing it)",
	RuleBidi:      "(the text shows in another order than a model reads it)",
	RuleInvisible: "(shows as nothing; a model still reads it)",
}

// maxPerRule bounds the findings of one rule in one file: a file full of
// escapes says so once per line for the first lines, then counts.
const maxPerRule = 10

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func lastIndex(fs []Finding, rule string) int {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Rule == rule {
			return i
		}
	}
	return -1
}
