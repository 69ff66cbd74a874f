package hook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megagit/megagit/decisionlog"
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

// FuzzSessionFile: a session id's file name is safe (no '/', no leading
// dot, at most 128 bytes) and names that id alone: a short one decodes
// back to the id, a long one carries a hash of it.
func FuzzSessionFile(f *testing.F) {
	for _, id := range []string{"0193e3f0-5d2a-7c1b", "a/b", "a\tb", "a_b", "..", "", "%41", strings.Repeat("é/", 80)} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		name := SanitizeID(id)
		if name == "" || len(name) > 128 || strings.ContainsAny(name, "/\\\x00") || name[0] == '.' {
			t.Fatalf("SanitizeID(%q) = %q", id, name)
		}
		if strings.Contains(name, "~") {
			if name[strings.Index(name, "~")+1:] != decisionlog.PromptHash(id)[:31] {
				t.Fatalf("long name %q lacks the id's hash", name)
			}
			return
		}
		var dec strings.Builder
		for i := 0; i < len(name); i++ {
			if name[i] == '%' && i+2 < len(name) {
				var b byte
				if _, err := fmt.Sscanf(name[i+1:i+3], "%02X", &b); err != nil {
					t.Fatalf("bad escape in %q", name)
				}
				dec.WriteByte(b)
				i += 2
				continue
			}
			dec.WriteByte(name[i])
		}
		if id != "" && dec.String() != id {
			t.Fatalf("SanitizeID(%q) = %q decodes to %q", id, name, dec.String())
		}
	})
}
