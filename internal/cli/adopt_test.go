package cli

import "testing"

func TestAdoptFlags(t *testing.T) {
	testFlags(t, newAdoptCmd, func(o *adoptOptions) { o.app = nil }, []flagCase[adoptOptions]{
		{name: "defaults", want: adoptOptions{agent: "all"}}, // scope: project in a project, user in the user registry
		{name: "every scope", args: []string{"--scope", "all"}, want: adoptOptions{agent: "all", scope: "all"}},
		{name: "every flag", args: []string{"--agent", "codex", "--scope", "user", "--restore", "--dry-run", "--json"},
			want: adoptOptions{agent: "codex", scope: "user", restore: true, dryRun: true, json: true}},
		{name: "unknown agent", args: []string{"--agent", "vim"}, wantErr: `--agent "vim": want claude, codex, gemini or all`},
		{name: "bad scope", args: []string{"--scope", "team"}, wantErr: `--scope "team": want project, user or all`},
		{name: "an argument", args: []string{"claude"}, wantErr: "expects no arguments"},
		{name: "except two", args: []string{"--except", "deploy,release", "--except", "notes"}, want: adoptOptions{agent: "all", except: []string{"deploy", "release", "notes"}}},
		{name: "except a path", args: []string{"--except", "a/b"}, wantErr: `--except "a/b": want a skill's name`},
		{name: "allow a rule", args: []string{"--allow", "download-exec"}, want: adoptOptions{agent: "all", allow: []string{"download-exec"}}},
		{name: "allow a typo", args: []string{"--allow", "curl"}, wantErr: `--allow "curl": not an audit rule`},
		{name: "shared", args: []string{"--shared"}, want: adoptOptions{agent: "all", shared: true}},
		{name: "codex disable", args: []string{"--agent", "codex", "--codex-disable"}, want: adoptOptions{agent: "codex", codexDisable: true}},
		{name: "codex disable for claude", args: []string{"--agent", "claude", "--codex-disable"}, wantErr: "--codex-disable: only to adopt for Codex"},
		{name: "codex disable on restore", args: []string{"--restore", "--codex-disable"}, wantErr: "--codex-disable: only to adopt for Codex"},
	})
}
