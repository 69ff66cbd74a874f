package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tempHome is an empty home folder, its path resolved (as Sessions gives
// paths).
func tempHome(t testing.TB) string {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return home
}

// sessionPath is where agent keeps a session file named name under home.
func sessionPath(home, agent, name string) string {
	switch agent {
	case AgentClaude:
		return filepath.Join(home, ".claude", "projects", "-home-user-proj", name)
	case AgentCodex:
		return filepath.Join(home, ".codex", "sessions", "2026", "01", "02", name)
	default:
		return filepath.Join(home, ".gemini", "tmp", "proj", "chats", name)
	}
}

// writeSession writes a session file of agent, one line per string.
func writeSession(t testing.TB, home, agent, name string, lines ...string) Session {
	t.Helper()
	p := sessionPath(home, agent, name)
	writeFile(t, p, strings.Join(lines, "\n")+"\n")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return Session{Agent: agent, Path: p, ModTime: st.ModTime(), Size: st.Size()}
}

func writeFile(t testing.TB, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Lines of a Claude Code transcript, in the shape Claude Code 2.1.332
// writes them (testdata/home/.claude).
func claudePromptLine(text string) string {
	return `{"type":"user","sessionId":"s1","cwd":"/home/user/proj","timestamp":"2026-01-02T10:00:00.000Z","isSidechain":false,"promptSource":"sdk","message":{"role":"user","content":` + quote(text) + `}}`
}

func claudeToolLine(id, name, input string) string {
	return `{"type":"assistant","sessionId":"s1","cwd":"/home/user/proj","isSidechain":false,"message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}]}}`
}

func claudeResultLine(id string, isError bool, content string) string {
	e := "false"
	if isError {
		e = "true"
	}
	return `{"type":"user","sessionId":"s1","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + quote(content) + `,"is_error":` + e + `}]}}`
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
