package install

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
)

var argv = []string{"/opt/mega git/megagit", "-C", "/srv/skills", "mcp"}

func TestMCPPath(t *testing.T) {
	for _, tc := range []struct{ agent, scope, want string }{
		{"claude", ScopeProject, "/w/.mcp.json"},
		{"claude", ScopeUser, "/h/.claude.json"},
		{"codex", ScopeProject, "/w/.codex/config.toml"},
		{"codex", ScopeUser, "/h/.codex/config.toml"},
		{"gemini", ScopeProject, "/w/.gemini/settings.json"},
		{"gemini", ScopeUser, "/h/.gemini/settings.json"},
	} {
		got, err := MCPPath(tc.agent, tc.scope, "/w", "/h")
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("MCPPath(%s, %s) = %q, %v; want %q", tc.agent, tc.scope, got, err, tc.want)
		}
	}
	if _, err := MCPPath("vim", ScopeUser, "/w", "/h"); err == nil {
		t.Error("unknown agent: no error")
	}
}

func TestSplitWordsUndoesShellQuote(t *testing.T) {
	for _, words := range [][]string{
		{"megagit"},
		{"/usr/local/bin/megagit", "-C", "/srv/skills"},
		{"/opt/it's here/megagit", "-C", "/tmp/a b"},
	} {
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, ShellQuote(w))
		}
		if got := splitWords(strings.Join(quoted, " ")); !slices.Equal(got, words) {
			t.Errorf("splitWords(%q) = %q, want %q", strings.Join(quoted, " "), got, words)
		}
	}
	if got := splitWords(`"/a b/megagit" -C x\ y`); !slices.Equal(got, []string{"/a b/megagit", "-C", "x y"}) {
		t.Errorf("double quotes and backslashes: %q", got)
	}
}

func TestMergeMCPJSONKeepsTheRest(t *testing.T) {
	old := `{"theme": "dark", "mcpServers": {"other": {"command": "npx", "args": ["-y", "x"]}}, "hooks": {}}`
	got, err := MergeMCPJSON([]byte(old), argv, hook.AgentClaude)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "theme": "dark",
  "mcpServers": {
    "other": {
      "command": "npx",
      "args": [
        "-y",
        "x"
      ]
    },
    "megagit": {
      "type": "stdio",
      "command": "/opt/mega git/megagit",
      "args": [
        "-C",
        "/srv/skills",
        "mcp"
      ]
    }
  },
  "hooks": {}
}
`
	if string(got) != want {
		t.Errorf("merged:\n%s\nwant:\n%s", got, want)
	}
	again, err := MergeMCPJSON(got, argv, hook.AgentClaude)
	if err != nil || string(again) != string(got) {
		t.Errorf("a second merge changed the file:\n%s", again)
	}
	back, err := RemoveMCPJSON(got)
	if err != nil || strings.Contains(string(back), "megagit") || !strings.Contains(string(back), `"other"`) {
		t.Errorf("removed:\n%s (%v)", back, err)
	}
	empty, err := RemoveMCPJSON([]byte(`{"mcpServers": {"megagit": {"command": "megagit"}}}`))
	if err != nil || string(empty) != "{}\n" {
		t.Errorf("removing the only server: %q, want {}", empty)
	}
	if _, err := MergeMCPJSON([]byte(`{"mcpServers": []}`), argv, hook.AgentGemini); err == nil {
		t.Error("mcpServers a list: no error")
	}
}

const codexConfig = `# my Codex settings
model = "o4-mini"  # fast

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.work]
model = "o3"
`

func TestMergeMCPTOMLKeepsCommentsAndOtherTables(t *testing.T) {
	got, err := MergeMCPTOML([]byte(codexConfig), argv)
	if err != nil {
		t.Fatal(err)
	}
	want := codexConfig + `
[mcp_servers.megagit]
command = '/opt/mega git/megagit'
args = ['-C', '/srv/skills', 'mcp']
`
	if string(got) != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
	again, err := MergeMCPTOML(got, argv)
	if err != nil || string(again) != string(got) {
		t.Errorf("a second merge changed the file:\n%s", again)
	}
	// Another command replaces our table where it is, subtables and all.
	moved := strings.Replace(codexConfig, "[profiles.work]", "[mcp_servers.megagit]\ncommand = \"old\"\n\n[mcp_servers.megagit.env]\nX = \"1\"\n\n[profiles.work]", 1)
	got, err = MergeMCPTOML([]byte(moved), []string{"megagit", "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "old") || strings.Contains(string(got), "X =") || !strings.Contains(string(got), "[mcp_servers.megagit]\ncommand = 'megagit'\nargs = ['mcp']\n\n[profiles.work]") {
		t.Errorf("replaced:\n%s", got)
	}
	back, err := RemoveMCPTOML(got)
	if err != nil || string(back) != codexConfig {
		t.Errorf("removed:\n%s\nwant:\n%s (%v)", back, codexConfig, err)
	}
}

func TestMergeMCPTOMLNewFileAndUnsafeForms(t *testing.T) {
	got, err := MergeMCPTOML(nil, []string{"megagit", "mcp"})
	if err != nil || string(got) != "[mcp_servers.megagit]\ncommand = 'megagit'\nargs = ['mcp']\n" {
		t.Errorf("new file: %q (%v)", got, err)
	}
	for name, doc := range map[string]string{
		"inline table": "mcp_servers = { megagit = { command = \"x\" } }\n",
		"dotted keys":  "[mcp_servers]\nmegagit.command = \"x\"\n",
	} {
		if _, err := MergeMCPTOML([]byte(doc), argv); !errors.Is(err, errUnsafe) {
			t.Errorf("%s: %v, want errUnsafe", name, err)
		}
	}
	if _, err := MergeMCPTOML([]byte("model = \n"), argv); err == nil || errors.Is(err, errUnsafe) {
		t.Errorf("invalid TOML: %v, want a parse error", err)
	}
}
