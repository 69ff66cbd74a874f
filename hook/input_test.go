package hook

import (
	"strings"
	"testing"
)

func TestSanitizeIDAndProjectWords(t *testing.T) {
	for in, want := range map[string]string{
		"0193-abc_D.e": "0193-abc_D.e", "a_b": "a_b", "a/b": "a%2Fb", "a\tb": "a%09b", "a%2Fb": "a%252Fb",
		"../../etc/passwd": "%2E.%2F..%2Fetc%2Fpasswd", "": "%", "..": "%2E%2E", "x.": "x%2E",
	} {
		if got := SanitizeID(in); got != want {
			t.Errorf("SanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("a", 200)
	if a, b := SanitizeID(long), SanitizeID(long+"b"); a == b || len(a) != 128 || !strings.HasPrefix(a, strings.Repeat("a", 96)+"~") {
		t.Errorf("long ids: %q, %q", a, b)
	}
	if got := SanitizeID(strings.Repeat("/", 100)); len(got) > 128 || strings.Contains(got[:strings.Index(got, "~")], "%2") && len(got[:strings.Index(got, "~")])%3 != 0 {
		t.Errorf("a %%XX split: %q", got)
	}
	if got := ProjectWords("/home/dev/Payments-API_v2/"); got != "payments api v2" {
		t.Errorf("ProjectWords = %q", got)
	}
}
