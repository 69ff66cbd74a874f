package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/registry"
)

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

func TestDoctorCheckSessionStart(t *testing.T) {
	work := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	write := func(body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(work, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, ".claude", "settings.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"hooks":{"UserPromptSubmit":[{"hooks":[{"command":"megagit hook prompt --agent claude"}]}]}}`)
	if c := DoctorCheck(work); c.Status != registry.CheckWarn || !strings.Contains(c.Detail, "without the session-start hook") || c.Hint == "" {
		t.Errorf("an install without session-start: %+v", c)
	}
	entries, _ := AgentEntries(hook.AgentClaude, "megagit", "")
	data, _ := Merge(nil, entries)
	write(string(data))
	if c := DoctorCheck(work); c.Status != registry.CheckOK {
		t.Errorf("a full install: %+v", c)
	}
}
