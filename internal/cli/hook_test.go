package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

// parseHook parses args with one of the hook commands and returns its
// options without the app, for comparing.
func parseHook[O any](build func(*app, func(*O) error) *cobra.Command, clear func(*O)) func(*testing.T, []string) (any, error) {
	return func(t *testing.T, args []string) (any, error) {
		got, err := parseOnly(t, build, args...)
		if err != nil {
			return nil, err
		}
		clear(got)
		return *got, nil
	}
}

func TestHookFlags(t *testing.T) {
	prompt := parseHook(newHookPromptCmd, func(o *hookPromptOptions) { o.app = nil })
	start := parseHook(newHookSessionStartCmd, func(o *hookSessionStartOptions) { o.app = nil })
	stop := parseHook(newHookStopCmd, func(o *hookStopOptions) { o.app = nil })
	install := parseHook(newHookInstallCmd, func(o *hookInstallOptions) { o.app = nil })
	uninstall := parseHook(newHookUninstallCmd, func(o *hookInstallOptions) { o.app = nil })
	tests := []struct {
		name    string
		parse   func(*testing.T, []string) (any, error)
		args    []string
		want    any
		wantErr string
	}{
		{name: "prompt: claude by default", parse: prompt, want: hookPromptOptions{agent: "claude"}},
		{name: "prompt: agent", parse: prompt, args: []string{"--agent", "gemini"}, want: hookPromptOptions{agent: "gemini"}},
		// An unknown agent is the hook's to log, not a usage error: a hook
		// never fails the agent.
		{name: "prompt: unknown agent", parse: prompt, args: []string{"--agent", "vim"}, want: hookPromptOptions{agent: "vim"}},
		{name: "prompt: an argument", parse: prompt, args: []string{"fix the tests"}, wantErr: "expects no arguments (the event comes on stdin)"},
		{name: "session-start: claude by default", parse: start, want: hookSessionStartOptions{agent: "claude"}},
		{name: "session-start: agent", parse: start, args: []string{"--agent", "codex"}, want: hookSessionStartOptions{agent: "codex"}},
		{name: "session-start: an argument", parse: start, args: []string{"startup"}, wantErr: "expects no arguments (the event comes on stdin)"},
		{name: "stop: claude by default", parse: stop, want: hookStopOptions{agent: "claude"}},
		{name: "stop: every flag", parse: stop, args: []string{"--agent", "codex", "--transcript", "t.jsonl", "--session", "s1", "--final"},
			want: hookStopOptions{agent: "codex", transcript: "t.jsonl", session: "s1", final: true}},
		{name: "stop: unknown flag", parse: stop, args: []string{"--dry-run"}, wantErr: "unknown flag: --dry-run"},
		{name: "install: defaults", parse: install, want: hookInstallOptions{agent: "claude", scope: "project"}},
		{name: "install: every flag", parse: install,
			args: []string{"--agent", "codex", "--scope", "user", "--dry-run", "--command", "/opt/megagit", "--hook-command", "none", "--mcp", "--json"},
			want: hookInstallOptions{agent: "codex", scope: "user", dryRun: true, command: "/opt/megagit", lean: "none", mcp: true, json: true}},
		{name: "install: unknown agent", parse: install, args: []string{"--agent", "vim"}, wantErr: `--agent: unknown agent "vim"`},
		{name: "install: bad scope", parse: install, args: []string{"--scope", "team"}, wantErr: `--scope "team": want project, local or user`},
		{name: "install: an argument", parse: install, args: []string{"claude"}, wantErr: "expects no arguments"},
		{name: "uninstall: defaults", parse: uninstall, want: hookInstallOptions{uninstall: true, agent: "claude", scope: "project"}},
		{name: "uninstall: agent, scope, dry run", parse: uninstall, args: []string{"--agent", "gemini", "--scope", "user", "--dry-run"},
			want: hookInstallOptions{uninstall: true, agent: "gemini", scope: "user", dryRun: true}},
		{name: "uninstall: mcp", parse: uninstall, args: []string{"--mcp"}, want: hookInstallOptions{uninstall: true, agent: "claude", scope: "project", mcp: true}},
		{name: "uninstall: json", parse: uninstall, args: []string{"--json"},
			want: hookInstallOptions{uninstall: true, agent: "claude", scope: "project", json: true}},
		{name: "uninstall: no --command", parse: uninstall, args: []string{"--command", "megagit"}, wantErr: "unknown flag: --command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(t, tt.args)
			if tt.wantErr != "" {
				wantUsageError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("options = %+v, want %+v", got, tt.want)
			}
		})
	}
}
