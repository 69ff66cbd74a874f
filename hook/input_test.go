package hook

import "testing"

func TestSanitizeIDAndProjectWords(t *testing.T) {
	for in, want := range map[string]string{"0193-abc_D.e": "0193-abc_D.e", "../../etc/passwd": "_.._etc_passwd", "": "_", "..": "_"} {
		if got := SanitizeID(in); got != want {
			t.Errorf("SanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ProjectWords("/home/dev/Payments-API_v2/"); got != "payments api v2" {
		t.Errorf("ProjectWords = %q", got)
	}
}
