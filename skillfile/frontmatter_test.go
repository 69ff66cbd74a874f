package skillfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "frontmatter", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t *testing.T, path string, data []byte) *File {
	t.Helper()
	f, err := Parse(path, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return f
}

func TestSkillFileParseFixtures(t *testing.T) {
	tests := []struct {
		file     string
		name     string
		desc     string
		body     string // "" = not checked
		headings []string
		evidence bool
	}{
		{file: "comments.md", name: "comments", desc: "Checks comments survive.", body: "\n# Comments\n\nBody text.\n", headings: []string{"Comments"}, evidence: true},
		{file: "folded.md", name: "folded", desc: "Validate the Stripe webhook signature before trusting the payload.",
			headings: []string{"Folded", "When to Use This Skill", "Other"}},
		{file: "literal.md", name: "literal", desc: "First line of a literal description. Indented second line. After a blank line.",
			body: "Body without a heading.\n"},
		{file: "unicode.md", name: "unicode", desc: "Café résumé naïve — 日本語のスキル 🚀 emoji and ünïcödé.", headings: []string{"Überschrift ✨"}},
		{file: "crlf.md", name: "crlf", desc: "Windows line endings.", body: "\r\n# CRLF\r\n\r\n- **Use when:** files come from Windows.\r\n",
			headings: []string{"CRLF"}, evidence: true},
		{file: "bom.md", name: "bom", desc: "Starts with a UTF-8 byte order mark.", body: "\n# BOM\n", headings: []string{"BOM"}},
		{file: "middle.md", name: "middle", desc: "mega_meta sits in the middle, followed by a blank line.", evidence: true},
		{file: "blockseq.md", name: "blockseq", evidence: true},
		{file: "unknown.md", name: "unknown", evidence: true},
		{file: "empty-body.md", name: "empty-body", body: "-"},
		{file: "no-newline.md", name: "no-newline", body: "-"},
		{file: "indented.md", name: "indented", desc: "The whole mapping is indented by two spaces."},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := mustParse(t, tt.file, readFixture(t, tt.file))
			if got := f.Name(); got != tt.name {
				t.Errorf("Name() = %q, want %q", got, tt.name)
			}
			if tt.desc != "" && f.Description() != tt.desc {
				t.Errorf("Description() = %q, want %q", f.Description(), tt.desc)
			}
			switch tt.body {
			case "":
			case "-":
				if f.Body() != "" {
					t.Errorf("Body() = %q, want empty", f.Body())
				}
			default:
				if f.Body() != tt.body {
					t.Errorf("Body() = %q, want %q", f.Body(), tt.body)
				}
			}
			if tt.headings != nil && !reflect.DeepEqual(f.Headings(), tt.headings) {
				t.Errorf("Headings() = %q, want %q", f.Headings(), tt.headings)
			}
			if f.HasEvidence() != tt.evidence {
				t.Errorf("HasEvidence() = %v, want %v", f.HasEvidence(), tt.evidence)
			}
			if f.Path() != tt.file {
				t.Errorf("Path() = %q", f.Path())
			}
		})
	}
}

func TestSkillFileEvidenceFixtures(t *testing.T) {
	at := time.Date(2026, 5, 21, 7, 54, 33, 0, time.UTC)
	tests := []struct {
		file string
		want lifecycle.Evidence
	}{
		{"bom.md", lifecycle.ColdStart()},
		{"comments.md", lifecycle.Evidence{HelpfulCount: 1, Status: lifecycle.Active, TrajectoryWeight: lifecycle.InitialWeight}},
		{"crlf.md", lifecycle.Evidence{HelpfulCount: 2, HarmfulCount: 1, HelpfulContexts: []string{"a"}, Status: lifecycle.Suspect,
			ConsecutiveHarmful: 1, TrajectoryWeight: 0.9}},
		{"middle.md", lifecycle.Evidence{HelpfulCount: 5, HelpfulContexts: []string{"one", "two"}, Status: lifecycle.Active,
			TrajectoryWeight: 1.1, ImplicitOutcomes: 4, LastSessionID: "s-1", LastUpdated: at}},
		{"blockseq.md", lifecycle.Evidence{HelpfulCount: 3, HarmfulCount: 1,
			HelpfulContexts: []string{"validate the stripe webhook signature", "rotate keys"},
			HarmfulContexts: []string{"a folded context"}, Status: lifecycle.Suspect, ConsecutiveHarmful: 1,
			TrajectoryWeight: 0.75, LastSessionID: "0193abc", LastUpdated: at}},
		{"unknown.md", lifecycle.Evidence{HelpfulCount: 1, Status: lifecycle.Active, TrajectoryWeight: 0.85}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := mustParse(t, tt.file, readFixture(t, tt.file)).Evidence()
			if err != nil {
				t.Fatal(err)
			}
			if !evidenceEqual(got, tt.want) {
				t.Errorf("Evidence() = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestSkillFileParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		line  int
		field string
		msg   string
	}{
		{"no opening", "name: x\n---\n", 1, "", `must start with a "---" line`},
		{"empty file", "", 1, "", `must start with a "---" line`},
		{"opening only", "---", 1, "", "never closed"},
		{"no closing", "---\nname: x\ndescription: y\n", 1, "", "never closed"},
		{"malformed", "---\nname: x\ndescription: [unclosed\nlicense: MIT\n---\n", 0, "", "malformed YAML"},
		{"bad indent", "---\nname: x\n  description: y\n---\n", 3, "", "malformed YAML"},
		{"tab indent", "---\nname: x\nmeta:\n\tkey: v\n---\n", 4, "", "malformed YAML"},
		{"list", "---\n- a\n- b\n---\n", 2, "", "must be a YAML mapping"},
		{"scalar", "---\njust text\n---\n", 2, "", "must be a YAML mapping"},
		{"duplicate key", "---\nname: x\nname: y\n---\n", 3, "name", "more than once"},
		{"alias", "---\na: &x 1\nb: *x\n---\n", 3, "", "aliases"},
		{"document end marker", "---\nname: x\n...\n--- \n", 0, "", ""}, // "--- " closes; a lone "..." is fine
		{"content after document end", "---\nname: x\n...\nlicense: MIT\n---\n", 4, "", "malformed YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("skills/x/SKILL.md", []byte(tt.data))
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				_ = f
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FieldError", err, err)
			}
			if !errors.Is(err, errkind.ErrInvalid) {
				t.Errorf("error %v does not match errkind.ErrInvalid", err)
			}
			if fe.File != "skills/x/SKILL.md" || (tt.line != 0 && fe.Line != tt.line) || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("got %#v, want line %d field %q msg containing %q", fe, tt.line, tt.field, tt.msg)
			}
			if fe.Line == 0 && tt.line == 0 && tt.name == "malformed" {
				// yaml.v3 reports this one with a line; make sure we kept it
				t.Errorf("malformed YAML error lost its line: %v", err)
			}
		})
	}
}

func TestSkillFileFieldErrorFormat(t *testing.T) {
	tests := []struct {
		e    FieldError
		want string
	}{
		{FieldError{File: "skills/x/SKILL.md", Line: 3, Field: "description", Msg: "missing"}, "skills/x/SKILL.md:3: field description: missing"},
		{FieldError{File: "a.md", Msg: "too big"}, "a.md: too big"},
		{FieldError{Line: 2, Msg: "m"}, ":2: m"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.e.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSkillFileYAMLBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: bomb\nlol0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("lol" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\n")
	done := make(chan error, 1)
	go func() {
		_, err := Parse("bomb.md", []byte(b.String()))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "aliases") {
			t.Fatalf("billion laughs: got %v, want an alias error", err)
		}
	case <-time.After(10 * time.Second): // a hang detector, not a timing assertion
		t.Fatal("billion laughs document did not fail promptly")
	}
}

func TestSkillFileOversize(t *testing.T) {
	data := make([]byte, 50<<20)
	copy(data, "---\nname: big\n---\n")
	_, err := Parse("big/SKILL.md", data)
	if err == nil || !strings.Contains(err.Error(), "big/SKILL.md") || !strings.Contains(err.Error(), "4 MiB") {
		t.Fatalf("got %v, want a size error naming the file and the limit", err)
	}
	if _, err := Parse("ok.md", append([]byte("---\nname: ok\n---\n"), make([]byte, MaxSize-20)...)); err != nil {
		t.Fatalf("a file just under the limit: %v", err)
	}
}

func TestSkillFileYAMLLineBreaks(t *testing.T) {
	// YAML also breaks lines on a lone CR and on U+2028/2029 and NEL; line
	// numbers in errors and the evidence splice must follow it.
	data := "---\nname: x\ndescription: \"a\u2028b\rc\u0085d\"\nbad: [\n---\n"
	_, err := Parse("x.md", []byte(data))
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v", err)
	}
	if fe.Line < 3 || fe.Line > 5 {
		t.Errorf("line %d, want a line of the file (3-5): %v", fe.Line, err)
	}
	f := mustParse(t, "x.md", []byte("---\nname: x\ndescription: \"a\u2028b\rc\u0085d\"\nlicense: MIT\n---\n"))
	out, err := f.WithEvidence(lifecycle.ColdStart())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "---\nname: x\ndescription: \"a\u2028b\rc\u0085d\"\nlicense: MIT\nmega_meta:\n") {
		t.Errorf("got %q", out)
	}
}

func TestSkillFileRenderNew(t *testing.T) {
	tests := []struct {
		name, desc, body string
		want             string
	}{
		{"pdf", "Fill PDF forms.", "", "---\nname: pdf\ndescription: \"Fill PDF forms.\"\n---\n\n# pdf\n"},
		{"x", `Say "hi": then\nleave` + "\n" + "tab\t", "Body\n", "---\nname: x\ndescription: \"Say \\\"hi\\\": then\\\\nleave\\ntab\\t\"\n---\n\nBody\n"},
		{"123", "numbers", "b", "---\nname: \"123\"\ndescription: \"numbers\"\n---\n\nb"},
		{"true", "bool-like", "b", "---\nname: \"true\"\ndescription: \"bool-like\"\n---\n\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderNew(tt.name, tt.desc, tt.body)
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			f := mustParse(t, "new.md", got)
			if f.Name() != tt.name || f.Description() != strings.Join(strings.Fields(tt.desc), " ") {
				t.Errorf("reads back as name %q description %q", f.Name(), f.Description())
			}
		})
	}
	long := strings.Repeat("a very long description ", 30)
	f := mustParse(t, "long.md", RenderNew("long", long, ""))
	if f.Description() != strings.TrimSpace(long) {
		t.Errorf("long description reads back as %q", f.Description())
	}
}

func TestFrontmatterQuote(t *testing.T) {
	tests := []string{
		"", "plain", `quote " and \ backslash`, "new\nline\r\n", "tab\there", "nul\x00bell\x07esc\x1b del\x7f",
		"c1 \u0085 \u0080 nbsp\u00a0", "ls\u2028ps\u2029", "bom\ufeff", "emoji 🚀 日本語", strings.Repeat("long words ", 40),
		"  leading and trailing  ", "# not a comment", "- not a list", "[x]", "{a: b}", "*alias", "&anchor", "!tag", "null", "~", "123",
	}
	for _, s := range tests {
		t.Run(s, func(t *testing.T) {
			q := fmQuote(s)
			if strings.ContainsAny(q, "\n\r") {
				t.Fatalf("fmQuote(%q) = %q spans lines", s, q)
			}
			var got string
			if err := yaml.Unmarshal([]byte("v: "+q), &struct{ V *string }{&got}); err != nil {
				t.Fatalf("yaml.v3 cannot read %q: %v", q, err)
			}
			if got != s {
				t.Errorf("fmQuote(%q) = %q reads back as %q", s, q, got)
			}
		})
	}
	if got := fmQuote("bad\xffutf8"); got != "\"bad\uFFFDutf8\"" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

// Bytes that are not UTF-8 in the frontmatter name their line, column and
// top-level key: yaml.v3 alone says neither.
func TestParseNamesInvalidUTF8(t *testing.T) {
	tests := []struct{ name, fm, want string }{
		{"plain", "name: x\ndescription: caf\xe9 time\n", "s/SKILL.md:3: field description: not valid UTF-8 (byte 0xE9 at column 17)"},
		{"folded, after a multi-byte rune", "name: x\ndescription: >\n  ünd caf\xe9\n", "s/SKILL.md:4: field description: not valid UTF-8 (byte 0xE9 at column 10)"},
		{"in a list", "name: x\ndescription: ok\nallowed-tools:\n  - \xffbash\n", "s/SKILL.md:5: field allowed-tools: not valid UTF-8 (byte 0xFF at column 5)"},
		{"in a key", "name: x\n\xfe: y\n", "s/SKILL.md:3: not valid UTF-8 (byte 0xFE at column 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s/SKILL.md", []byte("---\n"+tt.fm+"---\nbody\n"))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
}
