package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/hook"
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
	if c := DoctorCheck(work); c.Status != doctor.Warn || !strings.Contains(c.Detail, "without the session-start hook") || c.Hint == "" {
		t.Errorf("an install without session-start: %+v", c)
	}
	entries, _ := AgentEntries(hook.AgentClaude, "megagit", "")
	data, _ := Merge(nil, entries)
	write(string(data))
	if c := DoctorCheck(work); c.Status != doctor.OK {
		t.Errorf("a full install: %+v", c)
	}
}

// A hook or MCP entry that runs a megagit binary or registry that is gone
// fails doctor; one that runs an existing binary, or a bare name the
// agent's PATH resolves, passes.
func TestDoctorChecksBrokenCommands(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	bin := filepath.Join(t.TempDir(), "megagit")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "moved", "megagit")
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	settings := filepath.Join(work, ".claude", "settings.json")
	hooks := func(command string) {
		t.Helper()
		entries, err := AgentEntries(hook.AgentClaude, command, "")
		if err != nil {
			t.Fatal(err)
		}
		data, err := Merge(nil, entries)
		if err != nil {
			t.Fatal(err)
		}
		write(settings, string(data))
	}

	hooks(ShellQuote(gone))
	if c := DoctorCheck(work); c.Status != doctor.Fail || !strings.Contains(c.Detail, gone+" does not exist") || c.Hint == "" {
		t.Errorf("hooks running a binary that is gone: %+v", c)
	}
	hooks(ShellQuote(bin) + " -C " + ShellQuote(filepath.Join(work, "no-such-registry")))
	if c := DoctorCheck(work); c.Status != doctor.Fail || !strings.Contains(c.Detail, "no-such-registry (-C) is not a folder") {
		t.Errorf("hooks pinned to a registry that is gone: %+v", c)
	}
	hooks(ShellQuote(bin) + " -C " + ShellQuote(work))
	if c := DoctorCheck(work); c.Status != doctor.OK {
		t.Errorf("hooks running an existing binary: %+v", c)
	}
	// A settings file megagit cannot parse is named, not skipped in silence.
	gemini := filepath.Join(work, ".gemini", "settings.json")
	write(gemini, `{"hooks": {"BeforeAgent": [`)
	if c := DoctorCheck(work); c.Status != doctor.Warn || !strings.Contains(c.Detail, gemini+": ") || !strings.Contains(c.Detail, "installed in "+settings) || c.Hint == "" {
		t.Errorf("a settings file that does not parse: %+v", c)
	}
	if err := os.Remove(gemini); err != nil {
		t.Fatal(err)
	}

	if c := MCPDoctorCheck(work); c.Status != doctor.OK || !strings.Contains(c.Detail, "no agent has") {
		t.Errorf("no MCP server registered: %+v", c)
	}
	mcpJSON := filepath.Join(work, ".mcp.json")
	data, err := MergeMCPJSON(nil, []string{gone, "mcp"}, hook.AgentClaude)
	if err != nil {
		t.Fatal(err)
	}
	write(mcpJSON, string(data))
	codex := filepath.Join(work, ".codex", "config.toml")
	toml, err := MergeMCPTOML(nil, []string{"megagit", "-C", work, "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	write(codex, string(toml))
	c := MCPDoctorCheck(work)
	if c.Status != doctor.Fail || !strings.Contains(c.Detail, mcpJSON+": "+gone+" does not exist") || strings.Contains(c.Detail, codex+":") {
		t.Errorf("an MCP entry running a binary that is gone (and a good one): %+v", c)
	}
	data, _ = MergeMCPJSON(nil, []string{bin, "mcp"}, hook.AgentClaude)
	write(mcpJSON, string(data))
	if c := MCPDoctorCheck(work); c.Status != doctor.OK || !strings.Contains(c.Detail, mcpJSON) || !strings.Contains(c.Detail, codex) {
		t.Errorf("MCP entries that run: %+v", c)
	}
	// A configuration megagit cannot parse is named, not skipped in silence.
	write(codex, "[mcp_servers.megagit\ncommand = 1\n")
	if c := MCPDoctorCheck(work); c.Status != doctor.Warn || !strings.Contains(c.Detail, codex+": ") || c.Hint == "" {
		t.Errorf("an MCP configuration that does not parse: %+v", c)
	}
}
