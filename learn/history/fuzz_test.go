package history

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds the same bytes to the three readers: none fails on its
// content, and every use keeps a bounded prompt and a skill name.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		claudePromptLine("extract the tables") + "\n" + claudeToolLine("t1", "Skill", `{"skill":"pdf-tables"}`) + "\n",
		`{"type":"event_msg","payload":{"type":"user_message","message":"x"}}` + "\n" + `{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat a/SKILL.md\"}","call_id":"c"}}`,
		`{"id":"u","type":"user","content":[{"text":"x"}]}` + "\n" + `{"id":"m","type":"gemini","toolCalls":[{"id":"a","name":"activate_skill","args":{"name":"s"}}]}`,
		`{"messages":[{"id":"u","type":"user","content":"x"}]}`,
		"\x00\xff{\n\n",
	} {
		f.Add([]byte(s))
	}
	home := tempHome(f)
	paths := map[string]string{
		AgentClaude: sessionPath(home, AgentClaude, "f.jsonl"),
		AgentCodex:  sessionPath(home, AgentCodex, "rollout-f.jsonl"),
		AgentGemini: sessionPath(home, AgentGemini, "session-f.jsonl"),
		"legacy":    sessionPath(home, AgentGemini, "session-f.json"),
	}
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for agent, p := range paths {
			if agent == "legacy" {
				agent = AgentGemini
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Scan(Session{Agent: agent, Path: p})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, u := range r.Uses {
				if len(u.Prompt) > MaxPrompt || u.Skill == "" || bytes.Contains([]byte(u.Prompt), []byte("<skill-used")) {
					t.Fatalf("%s: use %+v", p, u)
				}
			}
		}
	})
}
