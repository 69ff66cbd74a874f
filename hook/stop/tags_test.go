package stop

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
			if strings.ContainsAny(tag.Reason, "\n\r\t") || (utf8.ValidString(s) && !utf8.ValidString(tag.Reason)) {
				t.Fatalf("reason not one valid line: %q", tag.Reason)
			}
			if len(tag.Reason) > 500+len("…") {
				t.Fatalf("reason too long: %d", len(tag.Reason))
			}
		}
	})
}
