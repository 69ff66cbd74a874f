package safetext

import (
	"strings"
	"testing"
)

func TestRedactSecrets(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok", "my token is [redacted] ok"},
		{"use sk-ant-api03-abcdefghijklmnopqrstuvwxyz for claude", "use [redacted] for claude"},
		{"AWS key AKIAIOSFODNN7EXAMPLE here", "AWS key [redacted] here"},
		{"clone https://bob:hunter2secret@git.example.com/r.git", "clone https://[redacted]@git.example.com/r.git"},
		{"set password=correct-horse-battery and go", "set password=[redacted] and go"},
		{`"api_key": "abcdef123456"`, `"api_key": "[redacted]"`},
		{"Authorization: Bearer abc.def.ghi-123", "Authorization: Bearer [redacted]"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM here", "jwt [redacted] here"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----", "[redacted]"},
		// Not secrets: words people use.
		{"extract the tables from report.pdf into csv", "extract the tables from report.pdf into csv"},
		{"the password field of the login form is broken", "the password field of the login form is broken"},
		{"rotate the api key in the settings page", "rotate the api key in the settings page"},
		{"see https://example.com/docs for the token format", "see https://example.com/docs for the token format"},
	} {
		if got := RedactSecrets(tt.in); got != tt.want {
			t.Errorf("RedactSecrets(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := RedactSecrets(strings.Repeat("ghp_", 10000)); strings.Contains(got, "ghp_abcd") {
		t.Error("unexpected")
	}
}
