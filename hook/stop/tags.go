package stop

import (
	"html"
	"regexp"
	"strings"
	"sync"

	"github.com/megagit/megagit/safetext"
)

// lazyRE compiles a regular expression on first use, not at program start:
// every megagit command pays for package initialisation (the prompt hook
// on every prompt), and the prompt hook uses none of these.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Tag is one <skill-used name=".." verdict=".." reason=".."/> report.
type Tag struct {
	Name    string
	Verdict string // HELPFUL, HARMFUL or NEUTRAL (upper case)
	// Reason is clean (safetext.Reason): one line, no control characters,
	// at most 500 characters.
	Reason string
	// Index is the tag's position among the valid tags of its text, so a
	// (message, index) pair names one report for de-duplication.
	Index int
	// Note says the reason was clipped ("reason clipped from 2097152 to
	// 500 characters"); "" when it was not.
	Note string
}

// MaxTagText caps how much of one message is scanned for tags: enough for
// a tag whose reason runs to megabytes (clipped, with a log line), not
// for a whole transcript in one message.
const MaxTagText = 8 << 20

var (
	tagRE  = lazyRE(`^<skill-used\b([^<>]*?)/?>`)
	attrRE = lazyRE(`([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	nameRE = lazyRE(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
)

// ParseTags returns the well-formed tags in text, in order. A tag needs a
// valid skill name (lowercase letters, digits, hyphens, at most 64) and one
// of the three verdict words (any case); anything else, including the
// template "HELPFUL|HARMFUL|NEUTRAL" the injection shows, is skipped. A tag
// inside a fenced code block (``` or ~~~) or an inline code span (`…`) is
// quoted, not reported, and skipped too. Attribute values are
// HTML-unescaped and reasons cleaned (safetext.Reason).
func ParseTags(text string) []Tag {
	if len(text) > MaxTagText {
		text = text[:MaxTagText]
	}
	if !strings.Contains(text, "<skill-used") {
		return nil
	}
	var out []Tag
	for _, raw := range tagsOutsideCode(text) {
		if tag, ok := parseTag(raw); ok {
			tag.Index = len(out)
			out = append(out, tag)
		}
	}
	return out
}

// parseTag reads the attributes of one <skill-used …> tag.
func parseTag(attrText string) (Tag, bool) {
	attrs := map[string]string{}
	for _, a := range attrRE().FindAllStringSubmatch(attrText, -1) {
		key := strings.ToLower(a[1])
		if _, dup := attrs[key]; dup {
			continue // first value wins, like an HTML parser
		}
		val := a[2]
		if val == "" {
			val = a[3]
		}
		attrs[key] = html.UnescapeString(val)
	}
	name := strings.TrimSpace(attrs["name"])
	verdict := strings.ToUpper(strings.TrimSpace(attrs["verdict"]))
	if len(name) > 64 || !nameRE().MatchString(name) {
		return Tag{}, false
	}
	switch verdict {
	case "HELPFUL", "HARMFUL", "NEUTRAL":
	default:
		return Tag{}, false
	}
	reason, note := safetext.Reason.Clean(attrs["reason"])
	return Tag{Name: name, Verdict: verdict, Reason: reason, Note: note}, true
}
