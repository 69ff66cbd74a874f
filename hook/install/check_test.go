package install

import "testing"

func TestSettingsHaveOurs(t *testing.T) {
	for name, tc := range map[string]struct {
		data string
		want bool
	}{
		"our prompt hook":       {`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"megagit hook prompt --agent claude"}]}]}}`, true},
		"another tool":          {`{"hooks":{"Stop":[{"hooks":[{"command":"other-tool run"}]}]}}`, false},
		"megagit not a command": {`{"note":"megagit hook prompt"}`, false},
		"not JSON":              {`{`, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := settingsHaveOurs([]byte(tc.data)); got != tc.want {
				t.Fatalf("settingsHaveOurs(%s) = %v, want %v", tc.data, got, tc.want)
			}
		})
	}
}
