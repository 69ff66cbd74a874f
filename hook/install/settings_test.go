package install

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
)

func TestMergeRemove(t *testing.T) {
	user := `{"model":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"},{"type":"command","command":"/old/megagit hook stop --agent claude"}]}]},"z":1}`
	entries, err := AgentEntries(hook.AgentClaude, "megagit", "")
	if err != nil {
		t.Fatal(err)
	}
	once, err := Merge([]byte(user), entries)
	if err != nil {
		t.Fatal(err)
	}
	s := string(once)
	if strings.Count(s, "hook stop --agent claude") != 2 || strings.Contains(s, "/old/megagit") || !strings.Contains(s, "notify-send done") {
		t.Errorf("install:\n%s", s)
	}
	if strings.Index(s, `"model"`) > strings.Index(s, `"hooks"`) || strings.Index(s, `"hooks"`) > strings.Index(s, `"z"`) {
		t.Errorf("key order changed:\n%s", s)
	}
	twice, err := Merge(once, entries)
	if err != nil || string(twice) != s {
		t.Errorf("second install changed the file (%v):\n%s", err, twice)
	}
	back, err := Remove(twice)
	if err != nil {
		t.Fatal(err)
	}
	if b := string(back); strings.Contains(b, "megagit") || !strings.Contains(b, "notify-send done") || !strings.Contains(b, `"z": 1`) {
		t.Errorf("uninstall:\n%s", b)
	}
	empty, err := Remove([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"megagit hook stop"}]}]}}`))
	if err != nil || strings.TrimSpace(string(empty)) != "{}" {
		t.Errorf("uninstall of ours only = %q, %v", empty, err)
	}
	if _, err := Merge([]byte(`[1]`), entries); err == nil {
		t.Error("a non-object settings file was accepted")
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"megagit hook prompt --agent claude":                 true,
		"/usr/local/bin/megagit hook stop --agent codex":     true,
		"'/path with space/megagit' -C /srv/reg hook prompt": true,
		"megagit -C '/a b' hook stop":                        true,
		"notmegagitx hook prompt":                            false,
		"megagit route foo":                                  false,
		"echo megagit hook prompt is great | tee":            true,
		"$HOME/bin/branch-context.sh":                        false,
		"megagit-hook prompt --agent claude":                 true,
		"'/opt/mg/megagit-hook' -C /srv/reg prompt":          true,
		"/usr/bin/megagit-hook --version":                    false,
		"megagit-hooks prompt":                               false,
		"megagit hook session-start --agent claude":          true,
		"/opt/mg/megagit-hook -C /srv/reg session-start":     true,
		"megagit hook session":                               false,
	} {
		if got := IsOurs(cmd); got != want {
			t.Errorf("IsOurs(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	got := Diff("a", "b", "x\ny\nz\n", "x\nY\nz\n")
	want := "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"
	if got != want {
		t.Errorf("Diff =\n%s\nwant\n%s", got, want)
	}
	if Diff("a", "b", "same", "same") != "" {
		t.Error("equal texts gave a diff")
	}
}

// TestSessionStartEntries checks every agent gets the session-start hook on
// its SessionStart event, and on the compaction event of the agents whose
// SessionStart does not fire after one, run by megagit-hook when there is one.
func TestSessionStartEntries(t *testing.T) {
	for agent, want := range map[string]string{
		hook.AgentClaude: "SessionStart[startup|resume|clear|compact]",
		hook.AgentCodex:  "SessionStart[] PostCompact[]",
		hook.AgentGemini: "SessionStart[] PreCompress[]",
	} {
		for _, lean := range []string{"", "megagit-hook"} {
			entries, err := AgentEntries(agent, "megagit", lean)
			if err != nil {
				t.Fatal(err)
			}
			cmd := "megagit hook session-start --agent " + agent
			if lean != "" {
				cmd = "megagit-hook session-start --agent " + agent
			}
			var got []string
			for _, e := range entries {
				if ourKind(e.Command) == "session-start" {
					if e.Command != cmd {
						t.Errorf("%s: %s runs %q, want %q", agent, e.Event, e.Command, cmd)
					}
					got = append(got, e.Event+"["+e.Matcher+"]")
				}
			}
			if strings.Join(got, " ") != want {
				t.Errorf("%s (lean %q): session-start on %q, want %q", agent, lean, got, want)
			}
		}
	}
	entries, _ := AgentEntries(hook.AgentClaude, "megagit", "")
	out, err := Merge(nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"matcher": "startup|resume|clear|compact",`) {
		t.Errorf("the SessionStart group has no matcher:\n%s", out)
	}
	if back, _ := Remove(out); strings.Contains(string(back), "session-start") {
		t.Errorf("uninstall left the session-start hook:\n%s", back)
	}
}

// TestSharedSettingsNameNoMachinePath: a project-scope install never
// writes a path of this machine: megagit by name, and a registry below the
// work tree's top by its path from there; the user's and local files pin
// the registry by its absolute path.
func TestSharedSettingsNameNoMachinePath(t *testing.T) {
	wt := filepath.Join(t.TempDir(), "proj")
	root := filepath.Join(wt, "tools", "skills")
	opts := Options{Agent: "claude", Scope: ScopeProject, Root: root, WorkTree: wt, Lean: "none", ErrOut: io.Discard}
	if cmd, lean := commands(opts); cmd != "megagit -C tools/skills" || lean != "" {
		t.Errorf("project: %q, %q", cmd, lean)
	}
	opts.Root = wt
	if cmd, _ := commands(opts); cmd != "megagit" {
		t.Errorf("project, registry at the top: %q", cmd)
	}
	opts.Scope, opts.Root, opts.Command = ScopeLocal, root, "/opt/bin/megagit"
	if cmd, _ := commands(opts); cmd != "/opt/bin/megagit -C "+ShellQuote(root) {
		t.Errorf("local: %q", cmd)
	}
}
