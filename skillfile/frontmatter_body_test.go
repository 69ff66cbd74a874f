package skillfile

import (
	"reflect"
	"testing"
)

func TestSkillFileTriggers(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"triggers.md", []string{
			"Use when the user asks for ISO 8601 dates!",
			"This skill should be used when parsing logs.",
			"Use this skill when timestamps look odd.",
			"Trigger: date, time, timezone",
			"user pastes a log line",
			`user says "what time"`,
		}},
		{"folded.md", []string{"A webhook handler rejects valid events", "You need to verify `Stripe-Signature`"}},
		{"crlf.md", []string{"Use when: files come from Windows."}},
		{"unicode.md", []string{"Use when the user writes in 中文 or mentions crème brûlée."}},
		{"literal.md", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := mustParse(t, tt.file, readFixture(t, tt.file)).Triggers()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Triggers() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSkillFileHeadings(t *testing.T) {
	body := "# One\n##Not\n ## Two ##\n####### seven\n```\n# fenced\n```\n~~~~\n# fenced\n~~~\n# still fenced\n~~~~\n#\n### Three # not closing#\n"
	f := mustParse(t, "h.md", []byte("---\nname: h\n---\n"+body))
	want := []string{"One", "Two", "Three # not closing#"}
	if got := f.Headings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Headings() = %q, want %q", got, want)
	}
}
