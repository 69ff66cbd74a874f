package history

import (
	"bufio"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A session a prompt and a skill load: the use every hostile file keeps.
var goodLines = []string{
	claudePromptLine("extract the tables"),
	claudeToolLine("t1", "Skill", `{"skill":"pdf-tables"}`),
}

func TestHostileLines(t *testing.T) {
	huge := `{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"` + strings.Repeat("A", MaxLine) + `"}]}}`
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	tests := []struct {
		name       string
		lines      []string
		junk, long int
	}{
		{"a line over MaxLine", []string{goodLines[0], huge, goodLines[1]}, 0, 1},
		{"binary junk", []string{string(junk), goodLines[0], "\x00\x00\x00", goodLines[1], "\xff\xfe{"}, -1, 0},
		{"lines of other shapes", []string{`[1,2]`, `"user"`, `{"type":"user","message":{"content":{"a":1}}}`, goodLines[0], `{"type":"assistant","message":"x"}`, goodLines[1]}, 2, 0},
		{"a torn last line", []string{goodLines[0], goodLines[1], `{"type":"user","sessionId":"s1","message":{"role":"user","content":"no, th`}, 1, 0},
		{"CRLF line ends", []string{goodLines[0] + "\r", goodLines[1] + "\r"}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := writeSession(t, tempHome(t), AgentClaude, "s1.jsonl", tc.lines...)
			r, err := Scan(s)
			if err != nil {
				t.Fatal(err)
			}
			checkUses(t, r.Uses, []use{{"pdf-tables", HowSkillTool, "extract the tables", false, ""}})
			if (tc.junk >= 0 && r.Junk != tc.junk) || r.Long != tc.long {
				t.Errorf("junk %d, long %d; want %d, %d", r.Junk, r.Long, tc.junk, tc.long)
			}
		})
	}
}

// TestHugeFile reads a file over MaxFile that holds one line longer than
// the cap: the uses before it are found, the line is skipped unread, the
// rest unread, and the memory used stays far below the file's size.
func TestHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 66 MiB")
	}
	home := tempHome(t)
	p := sessionPath(home, AgentClaude, "huge.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(goodLines[0] + "\n" + goodLines[1] + "\n")
	w.WriteString(`{"type":"user","message":{"role":"user","content":"`)
	chunk := strings.Repeat("0123456789abcdef", 4096)
	for n := 0; n < MaxFile+(2<<20); n += len(chunk) {
		w.WriteString(chunk)
	}
	w.WriteString("\"}}\n" + claudePromptLine("no, that's wrong") + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Scan(Session{Agent: AgentClaude, Path: p})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// The correction past the cap is never read.
	checkUses(t, r.Uses, []use{{"pdf-tables", HowSkillTool, "extract the tables", false, ""}})
	if r.Long != 1 || r.Unread != st.Size()-MaxFile {
		t.Errorf("long %d, unread %d; want 1, %d", r.Long, r.Unread, st.Size()-MaxFile)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("reading a %d MiB file allocated %d MiB", st.Size()>>20, alloc>>20)
	}
}

// TestSymlinks plants, under each agent's folder, a symlinked session file
// and a symlinked project folder, both pointing outside at a real session:
// neither is listed, and Read refuses both paths.
func TestSymlinks(t *testing.T) {
	home := tempHome(t)
	outside := tempHome(t)
	secret := filepath.Join(outside, "secret.jsonl")
	writeFile(t, secret, strings.Join(goodLines, "\n")+"\n")
	links := map[string][2]string{ // agent: the file link, the folder link
		AgentClaude: {sessionPath(home, AgentClaude, "link.jsonl"), filepath.Join(home, ".claude", "projects", "linked")},
		AgentCodex:  {sessionPath(home, AgentCodex, "rollout-link.jsonl"), filepath.Join(home, ".codex", "sessions", "2026", "01", "03")},
		AgentGemini: {sessionPath(home, AgentGemini, "session-link.jsonl"), filepath.Join(home, ".gemini", "tmp", "linked")},
	}
	inFolder := map[string]string{ // what the folder link is read as holding
		AgentClaude: "secret.jsonl", AgentCodex: "rollout-x.jsonl", AgentGemini: filepath.Join("chats", "session-x.jsonl"),
	}
	for agent, l := range links {
		writeSession(t, home, agent, map[string]string{AgentClaude: "real.jsonl", AgentCodex: "rollout-real.jsonl", AgentGemini: "session-real.jsonl"}[agent], goodLines...)
		if err := os.Symlink(secret, l[0]); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		target := outside
		if agent == AgentGemini {
			target = filepath.Join(outside, "g")
			writeFile(t, filepath.Join(target, inFolder[agent]), strings.Join(goodLines, "\n")+"\n")
		} else {
			writeFile(t, filepath.Join(target, inFolder[agent]), strings.Join(goodLines, "\n")+"\n")
		}
		if err := os.Symlink(target, l[1]); err != nil {
			t.Fatal(err)
		}
	}
	ss, err := Sessions(Options{Home: home, Env: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 3 {
		t.Errorf("%d sessions listed, want the 3 real ones: %+v", len(ss), ss)
	}
	for _, s := range ss {
		if !strings.Contains(filepath.Base(s.Path), "real") {
			t.Errorf("listed %s", s.Path)
		}
	}
	for agent, l := range links {
		for _, p := range []string{l[0], filepath.Join(l[1], inFolder[agent])} {
			if _, err := Read(Session{Agent: agent, Path: p}); !errors.Is(err, ErrNotSession) {
				t.Errorf("Read(%s): %v, want ErrNotSession", p, err)
			}
		}
	}
}

// TestReadRefuses: Read reads only a session file where its agent keeps
// them.
func TestReadRefuses(t *testing.T) {
	home := tempHome(t)
	s := writeSession(t, home, AgentClaude, "s1.jsonl", goodLines...)
	other := filepath.Join(home, "notes.jsonl")
	writeFile(t, other, strings.Join(goodLines, "\n"))
	for _, tc := range []Session{
		{Agent: AgentClaude, Path: other},                                      // not under projects/<project>/
		{Agent: AgentCodex, Path: s.Path},                                      // another agent's file
		{Agent: AgentClaude, Path: "relative/projects/p/s1.jsonl"},             // not absolute
		{Agent: "vim", Path: s.Path},                                           // no such agent
		{Agent: AgentClaude, Path: filepath.Dir(s.Path) + "/folder.jsonl/"},    // missing
		{Agent: AgentGemini, Path: filepath.Join(home, "tmp/p/chats/x.jsonl")}, // not session-*
	} {
		if _, err := Read(tc); err == nil {
			t.Errorf("Read(%+v): no error", tc)
		}
	}
	dir := sessionPath(home, AgentClaude, "dir.jsonl")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(Session{Agent: AgentClaude, Path: dir}); !errors.Is(err, ErrNotSession) {
		t.Errorf("Read of a folder: %v", err)
	}
}
