package cli

import "testing"

func TestVerdictFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    verdictOptions
		wantErr string
	}{
		{name: "name and verdict", args: []string{"lint-go", "HELPFUL"},
			want: verdictOptions{skill: "lint-go", verdict: "HELPFUL"}},
		{name: "every flag", args: []string{"lint-go", "harmful", "--reason", "wrong linter", "--context", "lint my go code", "--session", "s1"},
			want: verdictOptions{skill: "lint-go", verdict: "harmful", reason: "wrong linter", context: "lint my go code", session: "s1"}},
		{name: "no verdict", args: []string{"lint-go"}, wantErr: "expects a skill NAME and a verdict"},
		{name: "three arguments", args: []string{"a", "HELPFUL", "x"}, wantErr: "expects a skill NAME and a verdict"},
		{name: "unknown flag", args: []string{"a", "HELPFUL", "--why", "x"}, wantErr: "unknown flag: --why"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOnly(t, newVerdictCmd, tt.args...)
			if tt.wantErr != "" {
				wantUsageError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.app = nil
			if *got != tt.want {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}
