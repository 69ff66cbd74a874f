package history

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// touch sets a file's modification time.
func touch(t *testing.T, p string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

func TestSessionsOrderAndFilters(t *testing.T) {
	home := tempHome(t)
	base := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	files := []struct {
		agent, name string
		at          time.Duration
	}{
		{AgentGemini, "session-a.jsonl", 3 * time.Hour},
		{AgentClaude, "b.jsonl", time.Hour},
		{AgentCodex, "rollout-c.jsonl", 2 * time.Hour},
		{AgentClaude, "a.jsonl", time.Hour}, // same time as b: by path
		{AgentGemini, "session-old.json", 0},
	}
	for _, f := range files {
		s := writeSession(t, home, f.agent, f.name, goodLines...)
		touch(t, s.Path, base.Add(f.at))
	}
	// What is not a session is not listed.
	writeFile(t, filepath.Join(home, ".claude", "projects", "-home-user-proj", "s", "subagents", "agent-1.jsonl"), "{}\n")
	writeFile(t, filepath.Join(home, ".claude", "projects", "loose.jsonl"), "{}\n")
	writeFile(t, filepath.Join(home, ".claude", "projects", "p", "notes.txt"), "x")
	writeFile(t, filepath.Join(home, ".codex", "sessions", "2026", "01", "02", "other.jsonl"), "{}\n")
	writeFile(t, filepath.Join(home, ".codex", "sessions", "2026", "01", "rollout-shallow.jsonl"), "{}\n")
	writeFile(t, filepath.Join(home, ".gemini", "tmp", "proj", "logs.json"), "[]")
	writeFile(t, filepath.Join(home, ".gemini", "tmp", "proj", "chats", "notes.json"), "{}")

	names := func(ss []Session) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Agent+":"+filepath.Base(s.Path))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"all, oldest first", Options{}, []string{"gemini:session-old.json", "claude:a.jsonl", "claude:b.jsonl", "codex:rollout-c.jsonl", "gemini:session-a.jsonl"}},
		{"since", Options{Since: base.Add(2 * time.Hour)}, []string{"codex:rollout-c.jsonl", "gemini:session-a.jsonl"}},
		{"agents", Options{Agents: []string{AgentCodex, AgentClaude}}, []string{"claude:a.jsonl", "claude:b.jsonl", "codex:rollout-c.jsonl"}},
		{"no agent", Options{Agents: []string{}}, nil},
		{"an agent twice", Options{Agents: []string{AgentCodex, AgentCodex}}, []string{"codex:rollout-c.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Home, tc.o.Env = home, noEnv
			ss, err := Sessions(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(ss); !slices.Equal(got, tc.want) {
				t.Errorf("sessions %q, want %q", got, tc.want)
			}
			for _, s := range ss {
				st, err := os.Stat(s.Path)
				if err != nil || s.Size != st.Size() || !s.ModTime.Equal(st.ModTime()) || !filepath.IsAbs(s.Path) {
					t.Errorf("%+v: size, time or path wrong", s)
				}
			}
		})
	}
	if _, err := Sessions(Options{Home: home, Env: noEnv, Agents: []string{"cursor"}}); err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("an unknown agent: %v", err)
	}
	if ss, err := Sessions(Options{Home: tempHome(t), Env: noEnv}); err != nil || len(ss) != 0 {
		t.Errorf("a home without agents: %v, %v", ss, err)
	}
}

// TestSessionsEnv: CODEX_HOME, CLAUDE_CONFIG_DIR and GEMINI_CLI_HOME move
// the agents' folders, as they move them for the agents; a relative value
// is ignored.
func TestSessionsEnv(t *testing.T) {
	home, elsewhere := tempHome(t), tempHome(t)
	for _, agent := range []string{AgentClaude, AgentCodex, AgentGemini} {
		writeSession(t, home, agent, map[string]string{AgentClaude: "home.jsonl", AgentCodex: "rollout-home.jsonl", AgentGemini: "session-home.jsonl"}[agent], goodLines...)
	}
	writeFile(t, filepath.Join(elsewhere, "codex", "sessions", "2026", "05", "06", "rollout-moved.jsonl"), strings.Join(goodLines, "\n"))
	writeFile(t, filepath.Join(elsewhere, "claude", "projects", "p", "moved.jsonl"), strings.Join(goodLines, "\n"))
	writeFile(t, filepath.Join(elsewhere, "ghome", ".gemini", "tmp", "p", "chats", "session-moved.jsonl"), strings.Join(goodLines, "\n"))
	env := map[string]string{
		"CODEX_HOME":        filepath.Join(elsewhere, "codex"),
		"CLAUDE_CONFIG_DIR": filepath.Join(elsewhere, "claude"),
		"GEMINI_CLI_HOME":   filepath.Join(elsewhere, "ghome"),
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"set", env, "moved"},
		{"relative", map[string]string{"CODEX_HOME": "codex", "CLAUDE_CONFIG_DIR": "claude", "GEMINI_CLI_HOME": "ghome"}, "home"},
		{"unset", nil, "home"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss, err := Sessions(Options{Home: home, Env: func(k string) string { return tc.env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if len(ss) != 3 {
				t.Fatalf("%d sessions, want 3", len(ss))
			}
			for _, s := range ss {
				if !strings.Contains(filepath.Base(s.Path), tc.want) {
					t.Errorf("%s: want the %s one", s.Path, tc.want)
				}
				// (Claude Code's lines: the other agents' readers find none.)
				if uses, err := Read(s); err != nil || (s.Agent == AgentClaude) != (len(uses) == 1) {
					t.Errorf("Read(%s) = %v, %v", s.Path, uses, err)
				}
			}
		})
	}
}

// TestSessionsSymlinkedRoot: the agent's folder itself may be a symlink
// (a dotfiles manager's); what it holds is listed, at its real path.
func TestSessionsSymlinkedRoot(t *testing.T) {
	home, real := tempHome(t), tempHome(t)
	writeSession(t, real, AgentClaude, "s.jsonl", goodLines...)
	if err := os.Symlink(filepath.Join(real, ".claude"), filepath.Join(home, ".claude")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	ss, err := Sessions(Options{Home: home, Env: noEnv})
	if err != nil || len(ss) != 1 || !strings.HasPrefix(ss[0].Path, real) {
		t.Fatalf("Sessions = %+v, %v", ss, err)
	}
	if uses, err := Read(ss[0]); err != nil || len(uses) != 1 {
		t.Errorf("Read = %v, %v", uses, err)
	}
}
