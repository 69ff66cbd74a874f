package ranker

import (
	"slices"
	"strings"
)

// Passage is the part of a skill's body that shares the most content
// terms with a prompt: the section under one heading.
type Passage struct {
	// Heading is the section's heading line without its #s ("" for the
	// text before the first heading).
	Heading string `json:"heading"`
	// Line is the section's first line that holds a shared term, trimmed.
	Line string `json:"line"`
	// Terms are the shared terms (stems), in the prompt's order.
	Terms []string `json:"terms"`
}

// BestPassage is the section of body (split at Markdown headings, outside
// code fences) that contains the most distinct content terms of prompt,
// the first of equals; ok is false when no section shares a term. It
// explains a ranking to a person (`megagit why`); routing reads the body
// through the index's terms, not through sections.
func BestPassage(body, prompt string) (p Passage, ok bool) {
	want := uniqueTerms(Tokenize(prompt))
	if len(want) == 0 {
		return p, false
	}
	var (
		best    Passage
		heading string
		lines   []string
		fence   bool
	)
	flush := func() {
		if cand, n := scorePassage(heading, lines, want); n > len(best.Terms) {
			best = cand
		}
		lines = lines[:0]
	}
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(t, "#") {
			flush()
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		lines = append(lines, t)
	}
	flush()
	return best, len(best.Terms) > 0
}

// scorePassage finds which of want occur in a section, and its first
// line holding one.
func scorePassage(heading string, lines, want []string) (Passage, int) {
	p := Passage{Heading: heading}
	have := map[string]bool{}
	for _, t := range Tokenize(heading) {
		have[t] = true
	}
	for _, l := range lines {
		hit := false
		for _, t := range Tokenize(l) {
			have[t] = true
			hit = hit || slices.Contains(want, t)
		}
		if hit && p.Line == "" {
			p.Line = l
		}
	}
	for _, w := range want {
		if have[w] {
			p.Terms = append(p.Terms, w)
		}
	}
	if p.Line == "" && len(p.Terms) > 0 {
		p.Line = heading // only the heading shares a term
	}
	return p, len(p.Terms)
}
