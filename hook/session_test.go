package hook

import (
	"encoding/json"
	"fmt"
	"testing"
)

// longSession is a session of n prompts "prompt <turn>" with the given
// prompts replaced, passed through its file once.
func longSession(t *testing.T, n int, prompts map[int]string, injections ...Injection) *Session {
	t.Helper()
	s := &Session{ID: "s1", Agent: AgentCodex}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("prompt %d", i)
		if q, ok := prompts[i]; ok {
			p = q
		}
		if got := s.AddPrompt(p); got != i {
			t.Fatalf("AddPrompt = %d, want %d", got, i)
		}
	}
	for _, inj := range injections {
		inj.Prompt = s.Prompts[inj.Turn]
		s.Injections = append(s.Injections, inj)
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return ParseSession("s1", data)
}

func TestSessionKeepsLastPrompts(t *testing.T) {
	s := longSession(t, 100, nil)
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
	data, err := s.Marshal()
	if err != nil {
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

// TestSessionDroppedTurns checks the stop hook's view of a long session
// (agents without a transcript): an injection whose turn was dropped is
// still located, a correction still in the file counts, and one dropped
// with its prompt reads as no signal.
func TestSessionDroppedTurns(t *testing.T) {
	first := 100 - MaxSessionPrompts
	s := longSession(t, 100, map[int]string{
		10: "continue", 11: "no, that's wrong",
		first - 2: "set up the deploy", first + 1: "that's not right, undo",
		first + 5: "continue", // same prompt as turn 10's, much later
	},
		Injection{Skill: "old", Turn: 10},
		Injection{Skill: "recent", Turn: first - 2},
	)
	turns := s.Turns("", "")
	if len(turns) != 100 {
		t.Fatalf("%d turns, want 100", len(turns))
	}
	tests := []struct {
		skill  string
		at     int
		signal string
	}{
		{"old", 10, "none"},                 // its correction was dropped: no signal
		{"recent", first - 2, "correction"}, // 3 prompts later, still in the file
	}
	for i, tt := range tests {
		inj := s.Injections[i]
		at := LocateTurn(turns, inj)
		if at != tt.at {
			t.Fatalf("%s: LocateTurn = %d, want %d", tt.skill, at, tt.at)
		}
		o := ImplicitOutcome(turns, at, nil, false)
		if !o.Settled || o.Signal != tt.signal {
			t.Errorf("%s: outcome %+v, want settled %s", tt.skill, o, tt.signal)
		}
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
	if o := ImplicitOutcome(s.Turns("", ""), LocateTurn(s.Turns("", ""), s.Injections[0]), nil, false); o.Signal != "correction" {
		t.Errorf("old format: outcome %+v, want correction", o)
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
