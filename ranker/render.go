package ranker

import (
	"regexp"
	"strings"

	"github.com/megagit/megagit/safetext"
)

// Rendered is injection text and its token count, so hosts and `eval` agree
// on what a routing decision costs.
type Rendered struct {
	Text   string
	Tokens int
	// Included are the doc indices that made it into Text in any form.
	Included []int
}

// Tokens estimates the prompt tokens of text as ceil(bytes / 4), the same
// rule for every tool so figures compare.
func Tokens(text string) int { return (len(text) + 3) / 4 }

// Headers of the rendered blocks.
const (
	catalogHeader = "megagit: skills that may help with this prompt\n"
	composeHeader = "megagit: multi-skill context\n"
)

// catalogEntry is one skill's catalog line: name, description and path,
// each as safe to inject (safetext.Injected).
func catalogEntry(d Doc) string {
	desc := strings.Join(strings.Fields(safetext.Injected(d.Description)), " ")
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(safetext.Injected(d.ID))
	if desc != "" {
		b.WriteString(": ")
		b.WriteString(desc)
	}
	if d.Path != "" {
		b.WriteString(" (")
		b.WriteString(safetext.Injected(d.Path))
		b.WriteString(")")
	}
	b.WriteString("\n")
	return b.String()
}

// fits reports whether adding s to b keeps it within budget (<= 0: none).
func fits(b *strings.Builder, s string, budget int) bool {
	return budget <= 0 || Tokens(b.String()+s) <= budget
}

// RenderCatalog lists the emitted skills (name, description, path, each
// made safe to inject: safetext.Injected), in order, stopping before the first entry that would exceed the token budget;
// an entry is never cut. budget <= 0 means unlimited. Nothing emitted, or
// nothing that fits, renders as empty text.
func RenderCatalog(docs []Doc, emitted []int, budget int) Rendered {
	var b strings.Builder
	var r Rendered
	for _, i := range emitted {
		e := catalogEntry(docs[i])
		if b.Len() == 0 {
			e = catalogHeader + e
		}
		if !fits(&b, e, budget) {
			break
		}
		b.WriteString(e)
		r.Included = append(r.Included, i)
	}
	r.Text = b.String()
	r.Tokens = Tokens(r.Text)
	return r
}

// headingRE matches a Markdown ATX heading and captures its level and title.
var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// Gotchas returns the body of a skill's "Gotchas" section (any heading level
// whose title contains "gotcha"), up to the next heading of the same or a
// higher level, trimmed; "" if there is none.
func Gotchas(body string) string {
	lines := strings.Split(body, "\n")
	level := 0
	var out []string
	fence := false
	for _, ln := range lines {
		if strings.HasPrefix(strings.TrimSpace(ln), "```") {
			fence = !fence
		}
		m := headingRE.FindStringSubmatch(ln)
		if m != nil && !fence {
			l := len(m[1])
			if level > 0 && l <= level {
				break
			}
			if level == 0 && strings.Contains(strings.ToLower(m[2]), "gotcha") {
				level = l
				continue
			}
		}
		if level > 0 {
			out = append(out, ln)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// MaxSecondary is how many secondary skills get their Gotchas section in a
// composition; the rest are named only: the primary skill's instructions
// lead, and each further skill adds only the pitfalls it warns about.
const MaxSecondary = 2

// RenderCompose builds the composite injection: the first emitted
// skill's full body, the Gotchas sections of up to MaxSecondary following
// skills that have one, and the names of the rest, all within the token
// budget (<= 0: unlimited). It degrades gracefully: a primary body that does
// not fit falls back to its catalog entry, a Gotchas section that does not
// fit to the skill's name, and names that do not fit are left out. Every
// text a skill wrote is made safe to inject (safetext.Injected): no
// control, bidi or zero-width character, and no `<skill-used` tag the
// agent could mistake for its own.
func RenderCompose(docs []Doc, emitted []int, budget int) Rendered {
	var r Rendered
	if len(emitted) == 0 {
		return r
	}
	var b strings.Builder
	b.WriteString(composeHeader)
	p := docs[emitted[0]]
	body := strings.TrimSpace(safetext.Injected(p.Body))
	full := "\n## " + safetext.Injected(p.ID) + "\n" + body + "\n"
	switch {
	case body != "" && fits(&b, full, budget):
		b.WriteString(full)
	case fits(&b, catalogEntry(p), budget):
		b.WriteString(catalogEntry(p))
	default:
		return r
	}
	r.Included = append(r.Included, emitted[0])
	var rest []int
	secondary := 0
	for _, i := range emitted[1:] {
		g := Gotchas(safetext.Injected(docs[i].Body))
		sec := "\n## " + safetext.Injected(docs[i].ID) + " — Gotchas\n" + g + "\n"
		if secondary < MaxSecondary && g != "" && fits(&b, sec, budget) {
			b.WriteString(sec)
			r.Included = append(r.Included, i)
			secondary++
			continue
		}
		rest = append(rest, i)
	}
	for k, i := range rest {
		prefix := ", "
		if k == 0 {
			prefix = "\nAlso relevant: "
		}
		id := safetext.Injected(docs[i].ID)
		if !fits(&b, prefix+id+"\n", budget) {
			break
		}
		b.WriteString(prefix + id)
		r.Included = append(r.Included, i)
	}
	if len(rest) > 0 && len(r.Included) > secondary+1 {
		b.WriteString("\n")
	}
	r.Text = b.String()
	r.Tokens = Tokens(r.Text)
	return r
}
