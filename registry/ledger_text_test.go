package registry

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
)

// FuzzLedgerText: whatever text a verdict brings, its ledger line reads
// back as written, and every text field of it — and of its commit message —
// is valid UTF-8, one line without control characters, within its bound,
// and left as it is by a second cleaning. Seeds: testdata/fuzz/FuzzLedgerText.
func FuzzLedgerText(f *testing.F) {
	f.Add("shuffle found the cache", "my tests fail on CI", "sess-1")
	f.Add("bad\x00reason \x1b]0;pwned\a\x1b[2J", "line one\nline two\ttab\r\n", "a/b\tc")
	f.Add(strings.Repeat("é", 700), strings.Repeat("x ", 3000), strings.Repeat("s", 300))
	f.Add("\xff\xfe\u202eevil\u0085", "\u2028", "")
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, reason, context, session string) {
		in := VerdictInput{Skill: "a", Verdict: lifecycle.Harmful, Reason: reason, Context: context, Session: session}
		e := newEntry(in, at)
		entries, problems := ledger.Parse("f", ledger.Format([]ledger.Entry{e}))
		if len(entries) != 1 || len(problems) != 0 {
			t.Fatalf("round trip: %d entries, problems %v", len(entries), problems)
		}
		got := entries[0]
		for _, c := range []struct {
			f    safetext.Field
			want string
			got  string
		}{{safetext.Reason, e.Reason, got.Reason}, {safetext.Context, e.Context, got.Context}, {safetext.Session, e.Session, got.Session}} {
			if c.got != c.want {
				t.Fatalf("%s: wrote %q, read %q", c.f.Name, c.want, c.got)
			}
			if !utf8.ValidString(c.got) || strings.ContainsFunc(c.got, safetext.Hidden) || strings.ContainsAny(c.got, "\n\r\t") {
				t.Fatalf("%s not clean: %q", c.f.Name, c.got)
			}
			if n := utf8.RuneCountInString(c.got); n > c.f.Max {
				t.Fatalf("%s of %d characters, bound %d", c.f.Name, n, c.f.Max)
			}
			if again, note := c.f.Clean(c.got); again != c.got || note != "" {
				t.Fatalf("%s: cleaning twice changed %q to %q (%s)", c.f.Name, c.got, again, note)
			}
		}
		msg := safetext.Message(verdictMessage([]Applied{{Entry: e}}))
		if strings.ContainsFunc(msg, func(r rune) bool { return r != '\n' && safetext.Hidden(r) }) || !utf8.ValidString(msg) {
			t.Fatalf("commit message not clean: %q", msg)
		}
		if msg != verdictMessage([]Applied{{Entry: e}}) {
			t.Fatalf("a verdict's message needed cleaning: %q", verdictMessage([]Applied{{Entry: e}}))
		}
	})
}
