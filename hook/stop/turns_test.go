package stop

import (
	"fmt"
	"testing"

	"github.com/megagit/megagit/hook"
)

// longSession is a session of n prompts "prompt <turn>" with the given
// prompts replaced, passed through its file once.
func longSession(t *testing.T, n int, prompts map[int]string, injections ...hook.Injection) *hook.Session {
	t.Helper()
	s := &hook.Session{ID: "s1", Agent: hook.AgentCodex}
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
	return hook.ParseSession("s1", data)
}

// TestSessionDroppedTurns checks the stop hook's view of a long session
// (agents without a transcript): an injection whose turn was dropped is
// still located, a correction still in the file counts, and one dropped
// with its prompt reads as no signal.
func TestSessionDroppedTurns(t *testing.T) {
	first := 100 - hook.MaxSessionPrompts
	s := longSession(t, 100, map[int]string{
		10: "continue", 11: "no, that's wrong",
		first - 2: "set up the deploy", first + 1: "that's not right, undo",
		first + 5: "continue", // same prompt as turn 10's, much later
	},
		hook.Injection{Skill: "old", Turn: 10},
		hook.Injection{Skill: "recent", Turn: first - 2},
	)
	turns := rememberedTurns(s, "", "")
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

// TestOldSessionFormatOutcome checks a session file written before
// prompts were dropped still yields its outcome.
func TestOldSessionFormatOutcome(t *testing.T) {
	old := `{"id": "s1", "agent": "codex", "prompts": ["fix the build", "no, wrong"],
		"injections": [{"skill": "ci-fix", "path": "skills/ci-fix", "turn": 0, "prompt": "fix the build", "at": "2025-01-02T03:04:05Z"}],
		"updated": "2025-01-02T03:04:05Z"}`
	s := hook.ParseSession("s1", []byte(old))
	if o := ImplicitOutcome(rememberedTurns(s, "", ""), LocateTurn(rememberedTurns(s, "", ""), s.Injections[0]), nil, false); o.Signal != "correction" {
		t.Errorf("old format: outcome %+v, want correction", o)
	}
}
