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

// TestSkillFileWhenToUse: Claude Code's when_to_use field joins the
// description in what the skill lists, and each of its sentences is a
// trigger, first.
func TestSkillFileWhenToUse(t *testing.T) {
	f := mustParse(t, "w.md", []byte("---\nname: deploy-prod\ndescription: Deploy the web app.\nwhen_to_use: >\n  The user wants a release live. Or asks\n  to roll one back.\n---\n# Deploy\n\nUse when the pipeline is green.\n"))
	if got := f.WhenToUse(); got != "The user wants a release live. Or asks to roll one back." {
		t.Errorf("WhenToUse() = %q", got)
	}
	if got := f.Listing(); got != "Deploy the web app. The user wants a release live. Or asks to roll one back." {
		t.Errorf("Listing() = %q", got)
	}
	want := []string{"The user wants a release live.", "Or asks to roll one back.", "Use when the pipeline is green."}
	if got := f.Triggers(); !reflect.DeepEqual(got, want) {
		t.Errorf("Triggers() = %q, want %q", got, want)
	}
	plain := mustParse(t, "p.md", []byte("---\nname: p\ndescription: Only a description.\n---\n"))
	if plain.WhenToUse() != "" || plain.Listing() != "Only a description." {
		t.Errorf("without when_to_use: %q, %q", plain.WhenToUse(), plain.Listing())
	}
}
