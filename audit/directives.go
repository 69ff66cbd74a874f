package audit

import (
	"fmt"
	"regexp"
	"strings"
)

// Markers are the lines that open what megagit puts in the agent's
// context (the prompt hook's catalog and composition, the report request,
// the session instruction, the already-loaded note). A skill line that
// opens as one forges megagit's voice.
var Markers = []string{
	"megagit: skills that may help with this prompt",
	"megagit: multi-skill context",
	"megagit: if you use one of these skills",
	"megagit: in this session megagit may suggest skills",
	"megagit: already loaded in this session",
}

var tagRE = regexp.MustCompile(`(?i)<\s*skill-used\b`)

// forged reports megagit's report tag and its markers inside a skill: a
// tag the agent could copy as its own verdict, a marker that makes text
// of the skill read as megagit's. Quoted (a code block or span), it is
// an example: medium.
func forged(file, text string, ix *lineIndex, code [][2]int, where string) []Finding {
	var out []Finding
	for _, loc := range tagRE.FindAllStringIndex(text, -1) {
		sev, how := High, ""
		if quoted(text, ix, code, loc[0], loc[1]) {
			sev, how = Medium, " (quoted)"
		}
		out = append(out, Finding{File: file, Line: ix.line(loc[0]), Rule: RuleForged, Severity: sev,
			Message: where + "megagit's <skill-used> report tag" + how + ": a verdict the agent could copy as its own"})
	}
	for l, start := range ix.starts {
		end := len(text)
		if l+1 < len(ix.starts) {
			end = ix.starts[l+1]
		}
		t := strings.ToLower(strings.TrimLeft(text[start:end], " \t>"))
		for _, m := range Markers {
			if strings.HasPrefix(t, m) {
				out = append(out, Finding{File: file, Line: l + 1, Rule: RuleForged, Severity: High,
					Message: where + fmt.Sprintf("opens as megagit's marker %q: text of the skill posing as megagit's", m)})
				break
			}
		}
	}
	return out
}

// The phrasings addressed to the agent's controller rather than to the
// task: overriding its instructions, and keeping something from the user.
var (
	overrideRE = regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|every|of|these|those)\s+){0,3}(?:previous|prior|above|earlier|preceding|original|system|developer|safety)\s+(?:instructions?|prompts?|rules|directives|guidelines|messages)\b` +
		`|\b(?:ignore|disregard|override|bypass)\s+(?:(?:the|your|any)\s+)?system\s+prompt\b`)
	concealRE = regexp.MustCompile(`(?i)\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|alert|warn)\s+the\s+user\b` +
		`|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b` +
		`|\b(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:secret\s+)?from\s+the\s+user\b`)
	commentRE  = regexp.MustCompile(`(?s)<!--(.*?)-->`)
	addressRE  = regexp.MustCompile(`(?i)\b(?:AI|LLM|assistant|language\s+model|the\s+model|Claude|ChatGPT|GPT|Copilot|Gemini|Codex)\b`)
	imperateRE = regexp.MustCompile(`(?i)\b(?:you\s+must|you\s+should|always|never|do\s+not|don't|instead|secretly|silently|make\s+sure)\b`)
)

// directives reports text addressed to the agent's controller. An HTML
// comment is hidden from whoever reads the rendered file but not from the
// model, so a directive there is high and an instruction addressed to
// the model medium; a quoted phrase is an example, low.
func directives(file, text string, ix *lineIndex, code [][2]int, where string) []Finding {
	var out []Finding
	var comments [][2]int
	// Each pattern below needs one of a few words: a file without them
	// is not searched (the regular expressions are most of an audit's
	// time over a large catalog).
	// The long s and the Kelvin sign fold to s and k as the expressions
	// read case: a text holding either is searched whole.
	lower := strings.ToLower(text)
	folds := strings.ContainsAny(text, "\u017f\u212a")
	hasOverride := folds || containsAny(lower, "ignore", "disregard", "forget", "override", "bypass")
	hasConceal := folds || strings.Contains(lower, "user")
	if !strings.Contains(text, "<!--") {
		if !hasOverride && !hasConceal {
			return nil
		}
	}
	for _, loc := range commentRE.FindAllStringSubmatchIndex(text, -1) {
		if quoted(text, ix, code, loc[0], loc[1]) {
			continue // an example of a comment, read below as text
		}
		comments = append(comments, [2]int{loc[0], loc[1]})
		body := text[loc[2]:loc[3]]
		line := ix.line(loc[0])
		switch {
		case overrideRE.MatchString(body) || concealRE.MatchString(body):
			m := overrideRE.FindString(body)
			if m == "" {
				m = concealRE.FindString(body)
			}
			out = append(out, Finding{File: file, Line: line, Rule: RuleDirective, Severity: High,
				Message: where + fmt.Sprintf("an HTML comment, hidden from a reader, says %q to the agent", oneLine(m))})
		case addressRE.MatchString(body) && imperateRE.MatchString(body):
			out = append(out, Finding{File: file, Line: line, Rule: RuleDirective, Severity: Medium,
				Message: where + fmt.Sprintf("an HTML comment, hidden from a reader, instructs the model: %q", clip(oneLine(body), 80))})
		}
	}
	inComment := func(off int) bool {
		for _, c := range comments {
			if off >= c[0] && off < c[1] {
				return true
			}
		}
		return false
	}
	for _, p := range []struct {
		re   *regexp.Regexp
		sev  Severity
		what string
		has  bool
	}{
		{overrideRE, High, "overrides the agent's instructions", hasOverride},
		{concealRE, Medium, "keeps something from the user", hasConceal},
	} {
		if !p.has {
			continue
		}
		for _, loc := range p.re.FindAllStringIndex(text, -1) {
			if inComment(loc[0]) {
				continue
			}
			sev, how := p.sev, ""
			if quoted(text, ix, code, loc[0], loc[1]) {
				sev, how = Low, " (quoted: an example?)"
			}
			out = append(out, Finding{File: file, Line: ix.line(loc[0]), Rule: RuleDirective, Severity: sev,
				Message: where + fmt.Sprintf("%q %s%s", oneLine(text[loc[0]:loc[1]]), p.what, how)})
		}
	}
	return out
}

// containsAny says whether s holds one of words.
func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// oneLine folds white space to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n characters with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
