package cli

import "testing"

func TestVerdictFlags(t *testing.T) {
	testFlags(t, newVerdictCmd, func(o *verdictOptions) { o.app = nil }, []flagCase[verdictOptions]{
		{name: "name and verdict", args: []string{"lint-go", "HELPFUL"},
			want: verdictOptions{skill: "lint-go", verdict: "HELPFUL"}},
		{name: "every flag", args: []string{"lint-go", "harmful", "--reason", "wrong linter", "--context", "lint my go code", "--session", "s1"},
			want: verdictOptions{skill: "lint-go", verdict: "harmful", reason: "wrong linter", context: "lint my go code", session: "s1"}},
		{name: "json", args: []string{"lint-go", "NEUTRAL", "--json"}, want: verdictOptions{skill: "lint-go", verdict: "NEUTRAL", json: true}},
		{name: "no verdict", args: []string{"lint-go"}, wantErr: "expects a skill NAME and a verdict"},
		{name: "three arguments", args: []string{"a", "HELPFUL", "x"}, wantErr: "expects a skill NAME and a verdict"},
		{name: "unknown flag", args: []string{"a", "HELPFUL", "--why", "x"}, wantErr: "unknown flag: --why"},
	})
}
