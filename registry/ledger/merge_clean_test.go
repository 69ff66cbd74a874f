package ledger

import (
	"strings"
	"testing"
)

// TestMergeCleansTheirLines: a teammate's verdict line is kept the way one
// recorded here would be (reason cleaned and bounded), a line with an
// outcome out of range counts for nothing and is reported, and a huge
// unreadable line is left out, reported.
func TestMergeCleansTheirLines(t *testing.T) {
	ours := `{"id":"01J00000000000000000000001","skill":"s","verdict":"HELPFUL","source":"explicit","outcome":1,"at":"2026-11-01T00:00:00Z"}` + "\n"
	hostile := `{"id":"01J00000000000000000000002","skill":"s","verdict":"HARMFUL","source":"explicit","outcome":-1,"reason":"` +
		`bad\u001b]0;pwned\u0007` + strings.Repeat("x", 10000) + `","at":"2026-11-02T00:00:00Z"}`
	huge := `{"id":"01J00000000000000000000003","skill":"s","verdict":"HARMFUL","source":"explicit","outcome":-1e308,"at":"2026-11-03T00:00:00Z"}`
	junk := strings.Repeat("j", 100<<10)
	theirs := ours + hostile + "\n" + huge + "\n" + junk + "\n"
	out, problems := Merge("", []byte(ours), []byte(ours), []byte(theirs))
	got := string(out)
	if strings.Contains(got, "\x1b") || strings.Contains(got, `\u001b`) || strings.Contains(got, strings.Repeat("x", 600)) {
		t.Errorf("the remote's reason was merged uncleaned:\n%.300s", got)
	}
	if !strings.Contains(got, "01J00000000000000000000002") {
		t.Errorf("the remote's verdict was lost")
	}
	if strings.Contains(got, junk[:1000]) {
		t.Errorf("a 100 KiB junk line was merged")
	}
	want := []string{"cleaned verdict 01J00000000000000000000002", "outcome: -1e+308 is outside [-1, 1]", "left out an unreadable ledger line of 102400 bytes"}
	all := strings.Join(problems, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q:\n%s", w, all)
		}
	}
}
