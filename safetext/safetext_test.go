package safetext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want, note string
		f                    Field
	}{
		{"plain text is kept", "shuffle found the shared cache", "shuffle found the shared cache", "", Reason},
		{"NUL and ESC removed", "ok\x00 then \x1b[31mred\x1b[0m\a", "ok then [31mred[0m", "", Reason},
		{"newlines and tabs fold to one space", "a\n\tb\r\nc  ", "a b c", "", Context},
		{"C1 controls and bidi overrides removed", "a\u009bb\u202ec\u2066d", "abcd", "", Reason},
		{"invalid UTF-8 replaced", "a\xffb", "a\uFFFDb", "", Reason},
		{"clipped with an ellipsis", strings.Repeat("é", 600), strings.Repeat("é", 499) + "…", "reason clipped from 600 to 500 characters", Reason},
		{"no space before the ellipsis", strings.Repeat("a", 498) + " bcd", strings.Repeat("a", 498) + "…", "reason clipped from 502 to 499 characters", Reason},
		{"session ids are one line too", "a\tb", "a b", "", Session},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note := tt.f.Clean(tt.in)
			if got != tt.want || note != tt.note {
				t.Fatalf("Clean(%q) = %q, %q; want %q, %q", tt.in, got, note, tt.want, tt.note)
			}
			if again, n := tt.f.Clean(got); again != got || n != "" {
				t.Fatalf("not idempotent: %q -> %q (%q)", got, again, n)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	in := "verdict(a): HELPFUL\n\nreason\x00 with\tNUL\x1b]0;title\a\r\n"
	want := "verdict(a): HELPFUL\n\nreason with NUL]0;title\n"
	if got := Message(in); got != want {
		t.Fatalf("Message = %q, want %q", got, want)
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain, é and ✓", "plain, é and ✓"},
		{"\x1b[2Jgone\a", `\x1b[2Jgone\x07`},
		{"tab\there\nnewline", `tab\x09here\x0anewline`},
		{"bad \xff byte, C1 \u009b, bidi \u202e", `bad \xff byte, C1 \u009b, bidi \u202e`},
		{"zero-width \u200b, BOM \ufeff, tag \U000e0041, joiner 🧑\u200d💻", `zero-width \u200b, BOM \ufeff, tag \U000e0041, joiner 🧑` + "\u200d" + `💻`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSONEscapesHiddenCharacters(t *testing.T) {
	in := map[string]string{"d": "a\u202eb\u200bc\u009bd\x7fe\U000E0041f é 😀"}
	raw, err := json.MarshalIndent(in, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(raw)
	for _, r := range string(got) {
		if Hidden(r) && r != '\n' && r != '\t' {
			t.Fatalf("JSON left %U raw in %s", r, got)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("JSON made invalid JSON: %v: %s", err, got)
	}
	if back["d"] != in["d"] {
		t.Fatalf("decoded %q, want %q", back["d"], in["d"])
	}
	if !strings.Contains(string(got), `\u202e`) || !strings.Contains(string(got), `\udb40\udc41`) {
		t.Fatalf("want \\u escapes, got %s", got)
	}
}
