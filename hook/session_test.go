package hook

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestSessionKeepsLastPrompts(t *testing.T) {
	s := &Session{ID: "s1", Agent: AgentCodex}
	for i := 0; i < 100; i++ {
		if got := s.AddPrompt(fmt.Sprintf("prompt %d", i)); got != i {
			t.Fatalf("AddPrompt = %d, want %d", got, i)
		}
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s = ParseSession("s1", data)
	first := 100 - MaxSessionPrompts
	if s.FirstTurn != first || len(s.Prompts) != 100 {
		t.Fatalf("FirstTurn = %d, %d prompts; want %d, 100", s.FirstTurn, len(s.Prompts), first)
	}
	for i, p := range s.Prompts {
		want := ""
		if i >= first {
			want = fmt.Sprintf("prompt %d", i)
		}
		if p != want {
			t.Fatalf("Prompts[%d] = %q, want %q", i, p, want)
		}
	}
	if got := s.AddPrompt("one more"); got != 100 {
		t.Fatalf("AddPrompt after reload = %d, want 100", got)
	}
	if data, err = s.Marshal(); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Prompts   []string `json:"prompts"`
		FirstTurn int      `json:"first_turn"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Prompts) != MaxSessionPrompts || file.FirstTurn != first+1 || file.Prompts[MaxSessionPrompts-1] != "one more" {
		t.Fatalf("file keeps %d prompts from turn %d, last %q", len(file.Prompts), file.FirstTurn, file.Prompts[len(file.Prompts)-1])
	}
	if len(s.Prompts) != 101 {
		t.Fatalf("Marshal changed the session: %d prompts", len(s.Prompts))
	}
}

func TestParseSessionFormats(t *testing.T) {
	old := `{"id": "s1", "agent": "codex", "prompts": ["fix the build", "no, wrong"],
		"injections": [{"skill": "ci-fix", "path": "skills/ci-fix", "turn": 0, "prompt": "fix the build", "at": "2025-01-02T03:04:05Z"}],
		"updated": "2025-01-02T03:04:05Z"}`
	s := ParseSession("s1", []byte(old))
	if s.FirstTurn != 0 || len(s.Prompts) != 2 || s.Prompts[1] != "no, wrong" || len(s.Injections) != 1 {
		t.Fatalf("old format: %+v", s)
	}
	for name, data := range map[string]string{
		"negative first turn": `{"id": "s1", "prompts": ["a"], "first_turn": -1}`,
		"huge first turn":     `{"id": "s1", "prompts": ["a"], "first_turn": 1000000000}`,
		"other id":            `{"id": "s2", "prompts": ["a"]}`,
		"junk":                `{"id": `,
	} {
		if s := ParseSession("s1", []byte(data)); s.ID != "s1" || len(s.Prompts) != 0 || s.FirstTurn != 0 {
			t.Errorf("%s: got %+v, want an empty session", name, s)
		}
	}
}

// TestSessionInstruction walks one session through the instruction's
// life: given once (by SessionStart or the first injection), given again
// after a compaction, and skills injected before a compaction no longer
// counted as in the context.
func TestSessionInstruction(t *testing.T) {
	s := &Session{ID: "s1"}
	if !s.NeedsInstruction() {
		t.Fatal("a fresh session without SessionStart does not need the instruction")
	}
	s.Arm("")
	if s.NeedsInstruction() || s.Armed != SourceStartup {
		t.Fatalf("after SessionStart: needs %v, armed %q", s.NeedsInstruction(), s.Armed)
	}
	turn := s.AddPrompt("flaky tests")
	s.Injections = append(s.Injections, Injection{Skill: "flaky-tests", Turn: turn})
	if s.InContext("flaky-tests") == nil || s.InContext("other") != nil {
		t.Fatal("InContext does not see the injection")
	}
	s.AddPrompt("again")
	s.Arm(SourceResume)
	if s.InContext("flaky-tests") == nil {
		t.Error("a resume dropped the injection from the context")
	}
	s.Arm(SourceCompact)
	if s.InContext("flaky-tests") != nil || s.NeedsInstruction() {
		t.Errorf("after a compact SessionStart: in context %v, needs %v", s.InContext("flaky-tests") != nil, s.NeedsInstruction())
	}
	s.Injections[0].Shown = s.AddPrompt("flaky again")
	if s.InContext("flaky-tests") == nil {
		t.Error("shown again after the compaction, still not in the context")
	}

	// No SessionStart: the first injection carries it, until a compaction
	// the agent reports without a way to add context.
	old := &Session{ID: "s2"}
	old.Instructed = true
	if old.NeedsInstruction() {
		t.Error("instructed by an injection, still needs it")
	}
	old.Compacted()
	if !old.NeedsInstruction() {
		t.Error("after a compaction event, the instruction is not needed again")
	}
	s.Armed = ""
	s.Instructed = true
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back := ParseSession("s1", data)
	if back.ContextTurn != s.ContextTurn || !back.Instructed || back.Injections[0].Shown != s.Injections[0].Shown {
		t.Errorf("round trip lost the instruction state: %+v", back)
	}
}
