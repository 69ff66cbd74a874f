package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchHome writes n small Claude Code sessions (a dozen lines each, in
// the shape of testdata's: two prompts, a Skill load, a Read of a
// SKILL.md, a Bash command and its result, an attachment) over n/100
// projects.
func benchHome(b *testing.B, n int) string {
	b.Helper()
	home := tempHome(b)
	attachment := `{"type":"attachment","sessionId":"s1","attachment":{"type":"skill_listing","content":"` + strings.Repeat("- a-skill: does a thing. ", 40) + `"}}`
	for i := range n {
		p := filepath.Join(home, ".claude", "projects", fmt.Sprintf("-home-user-proj%d", i/100), fmt.Sprintf("s%05d.jsonl", i))
		lines := []string{
			`{"type":"queue-operation","operation":"enqueue","sessionId":"s1","content":"extract the tables"}`,
			claudePromptLine(fmt.Sprintf("extract the tables from report%d.pdf", i)),
			attachment,
			claudeToolLine("t1", "Skill", `{"skill":"pdf-tables"}`),
			claudeResultLine("t1", false, "Launching skill: pdf-tables"),
			`{"type":"user","sessionId":"s1","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Base directory for this skill: /home/user/proj/.claude/skills/pdf-tables\n\n# Steps\nUse pdfplumber."}]}}`,
			claudeToolLine("b1", "Bash", `{"command":"python3 extract.py report.pdf","description":"extract"}`),
			claudeResultLine("b1", i%3 == 0, "Exit code 1"),
			`{"type":"assistant","sessionId":"s1","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}`,
			claudePromptLine("now clean the csv"),
			claudeToolLine("r1", "Read", `{"file_path":"/home/user/.claude/skills/csv-clean/SKILL.md"}`),
			claudeResultLine("r1", false, "1\t---\n2\tname: csv-clean"),
			`{"type":"last-prompt","lastPrompt":"now clean the csv","sessionId":"s1"}`,
		}
		writeFile(b, p, strings.Join(lines, "\n")+"\n")
	}
	return home
}

// BenchmarkHistory reads 10,000 small sessions: Sessions and Read over
// them, against only reading each file whole (os.ReadFile) in the same
// run; the ratio of the two is what the parsing costs:
//
//	go test ./learn/history -run x -bench History -benchtime 5x
func BenchmarkHistory(b *testing.B) {
	const n = 10000
	home := benchHome(b, n)
	o := Options{Home: home, Env: noEnv, Agents: []string{AgentClaude}}
	ss, err := Sessions(o)
	if err != nil || len(ss) != n {
		b.Fatalf("%d sessions, %v", len(ss), err)
	}
	var size int64
	for _, s := range ss {
		size += s.Size
	}
	b.Run("os.ReadFile", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, s := range ss {
				if _, err := os.ReadFile(s.Path); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Sessions+Read", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			ss, err := Sessions(o)
			if err != nil {
				b.Fatal(err)
			}
			uses := 0
			for _, s := range ss {
				u, err := Read(s)
				if err != nil {
					b.Fatal(err)
				}
				uses += len(u)
			}
			if uses != 2*n {
				b.Fatalf("%d uses, want %d", uses, 2*n)
			}
		}
	})
}
