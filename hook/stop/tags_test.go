package stop

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/megagit/megagit/safetext"
)

func TestParseTags(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Tag
	}{
		{"none", "no tags here", nil},
		{"one", `done. <skill-used name="flaky-tests" verdict="HELPFUL" reason="found it"/>`,
			[]Tag{{Name: "flaky-tests", Verdict: "HELPFUL", Reason: "found it"}}},
		{"any order, single quotes, lower case verdict, no slash",
			`<skill-used reason='it broke' verdict='harmful' name='docker-slim'>`,
			[]Tag{{Name: "docker-slim", Verdict: "HARMFUL", Reason: "it broke"}}},
		{"two, indexed", `<skill-used name="a" verdict="NEUTRAL"/> and <skill-used name="b-2" verdict="HELPFUL" reason=""/>`,
			[]Tag{{Name: "a", Verdict: "NEUTRAL"}, {Name: "b-2", Verdict: "HELPFUL", Index: 1}}},
		{"template is not a verdict", `<skill-used name="SKILL" verdict="HELPFUL|HARMFUL|NEUTRAL" reason="one short sentence"/>`, nil},
		{"bad name", `<skill-used name="../etc" verdict="HELPFUL"/><skill-used name="Upper" verdict="HELPFUL"/>`, nil},
		{"no verdict", `<skill-used name="a"/>`, nil},
		{"escaped reason folded", "<skill-used name=\"a\" verdict=\"HELPFUL\" reason=\"a &quot;raw&quot;\n  body &amp; more\"/>",
			[]Tag{{Name: "a", Verdict: "HELPFUL", Reason: `a "raw" body & more`}}},
		{"first attribute wins", `<skill-used name="a" name="b" verdict="HARMFUL"/>`,
			[]Tag{{Name: "a", Verdict: "HARMFUL"}}},
		{"unterminated", `<skill-used name="a" verdict="HELPFUL"`, nil},
		{"nested angle", `<skill-used name="a" verdict="HELPFUL" reason="x<y"/>`, nil},
		{"in a fenced block", "Report like this:\n```xml\n<skill-used name=\"a\" verdict=\"HARMFUL\"/>\n```\n", nil},
		{"in an indented tilde fence, left open", "  ~~~~\n<skill-used name=\"a\" verdict=\"HARMFUL\"/>\n~~~\n", nil},
		{"in inline code", "write `<skill-used name=\"a\" verdict=\"HARMFUL\"/>` at the end", nil},
		{"in a double-backtick span", "``x ` <skill-used name=\"a\" verdict=\"HARMFUL\"/> ``", nil},
		{"after a fence closes", "```\n<skill-used name=\"a\" verdict=\"HARMFUL\"/>\n```\n<skill-used name=\"b\" verdict=\"HELPFUL\"/>",
			[]Tag{{Name: "b", Verdict: "HELPFUL"}}},
		{"a reason quoting code", "<skill-used name=\"a\" verdict=\"HELPFUL\" reason=\"ran `go test`\"/>",
			[]Tag{{Name: "a", Verdict: "HELPFUL", Reason: "ran `go test`"}}},
		{"an unclosed backtick is text", "it's a ` quote <skill-used name=\"a\" verdict=\"HELPFUL\"/>",
			[]Tag{{Name: "a", Verdict: "HELPFUL"}}},
		{"a span does not cross a blank line", "a ` b\n\n<skill-used name=\"a\" verdict=\"HELPFUL\"/> `",
			[]Tag{{Name: "a", Verdict: "HELPFUL"}}},
		{"control characters removed from the reason", "<skill-used name=\"a\" verdict=\"HELPFUL\" reason=\"ok\x00\x1b[31m red\a\"/>",
			[]Tag{{Name: "a", Verdict: "HELPFUL", Reason: "ok[31m red"}}},
		{"a long reason clipped, with a note", `<skill-used name="a" verdict="HELPFUL" reason="` + strings.Repeat("x", 3<<20) + `"/>`,
			[]Tag{{Name: "a", Verdict: "HELPFUL", Reason: strings.Repeat("x", 499) + "…", Note: "reason clipped from 3145728 to 500 characters"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseTags(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTags(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzSkillUsedTags(f *testing.F) {
	f.Add(`<skill-used name="flaky-tests" verdict="HELPFUL" reason="found it"/>`)
	f.Add(`<skill-used reason='x' verdict='harmful' name='a-b'>`)
	f.Add(`<skill-used name="a" verdict="NEUTRAL" reason="` + strings.Repeat("é", 400) + `"/>`)
	f.Add("`<skill-used name=\"a\" verdict=\"HELPFUL\"/>` and ```\n<skill-used name=\"b\" verdict=\"HELPFUL\"/>\n```")
	f.Fuzz(func(t *testing.T, s string) {
		tags := ParseTags(s)
		for i, tag := range tags {
			if tag.Index != i {
				t.Fatalf("tag %d has index %d", i, tag.Index)
			}
			if !nameRE().MatchString(tag.Name) || len(tag.Name) > 64 {
				t.Fatalf("bad name %q", tag.Name)
			}
			switch tag.Verdict {
			case "HELPFUL", "HARMFUL", "NEUTRAL":
			default:
				t.Fatalf("bad verdict %q", tag.Verdict)
			}
			checkCleanReason(t, tag)
		}
		checkNoTagInCode(t, s)
	})
}

// checkCleanReason fails unless a tag's reason is what the ledger keeps:
// one line of valid UTF-8, no control character, within the bound.
func checkCleanReason(t *testing.T, tag Tag) {
	t.Helper()
	if safetext.Line(tag.Reason) != tag.Reason || !utf8.ValidString(tag.Reason) {
		t.Fatalf("reason not one clean line: %q", tag.Reason)
	}
	for _, r := range tag.Reason {
		if safetext.Hidden(r) {
			t.Fatalf("reason holds %U: %q", r, tag.Reason)
		}
	}
	if n := utf8.RuneCountInString(tag.Reason); n > safetext.Reason.Max {
		t.Fatalf("reason of %d characters", n)
	}
}

// checkNoTagInCode fails when s, quoted in a fenced code block (or, on
// one line, in an inline code span) that s cannot close, yields a tag.
func checkNoTagInCode(t *testing.T, s string) {
	t.Helper()
	longest := func(c string) int {
		n := 0
		for run := c; strings.Contains(s, run); run += c {
			n++
		}
		return n
	}
	fenced := strings.Repeat("~", longest("~")+3) + "\n" + s
	if tags := ParseTags(fenced); len(tags) > 0 {
		t.Fatalf("a tag from inside a fenced block: %+v", tags)
	}
	if !strings.Contains(s, "\n") {
		tick := strings.Repeat("`", longest("`")+1)
		if tags := ParseTags("x " + tick + " " + s + " " + tick); len(tags) > 0 {
			t.Fatalf("a tag from inside a code span: %+v", tags)
		}
	}
}
