package stop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Copilot CLI 1.0.102 session file, cut to the lines megagit reads and a
// few it skips (as written in the e2e run).
const copilotEvents = `{"type":"session.start","data":{"sessionId":"b8ca","copilotVersion":"1.0.102"},"id":"e1"}
{"type":"hook.start","data":{"hookType":"userPromptSubmitted","input":{"prompt":"fix the flaky test"}},"id":"e2"}
{"type":"user.message","data":{"content":"fix the flaky test","transformedContent":"fix the flaky test\n\n<system_reminder>\nmegagit: skills that may help\n</system_reminder>","messageId":"u1"},"id":"e3"}
{"type":"assistant.message","data":{"messageId":"a1","content":"Done.\n<skill-used name=\"flaky-tests\" verdict=\"HELPFUL\" reason=\"it found the race\"/>","toolRequests":[]},"id":"e4"}
{"type":"assistant.message","data":{"messageId":"a2","content":"from a subagent <skill-used name=\"x\" verdict=\"HARMFUL\"/>","parentToolCallId":"t1"},"id":"e5"}
not json
{"type":"user.message","data":{"content":"thanks, ship it","messageId":"u2"},"id":"e6"}
`

func TestReadCopilotTranscript(t *testing.T) {
	tr, err := ReadCopilotTranscript(strings.NewReader(copilotEvents))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Turns) != 2 || tr.Turns[0].Prompt != "fix the flaky test" || tr.Turns[1].Prompt != "thanks, ship it" {
		t.Fatalf("turns = %+v", tr.Turns)
	}
	if tx := tr.Turns[0].Texts; len(tx) != 1 || tx[0].Key != "a1" || !strings.Contains(tx[0].Text, `name="flaky-tests"`) {
		t.Errorf("first turn's texts = %+v (want the main assistant's only)", tx)
	}
	if tr.Skipped != 1 {
		t.Errorf("skipped = %d, want 1", tr.Skipped)
	}
}

// TestReadCopilotWaitsForTheFile: Copilot CLI creates a session's
// events.jsonl at its first flush, which can come after its agentStop hook
// started: the stop hook waits for the file (within copilotSettle) instead
// of finding no turn and recording "no signal".
func TestReadCopilotWaitsForTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	done := make(chan error, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		done <- os.WriteFile(path, []byte(copilotEvents), 0o600)
	}()
	turns, err := readCopilot(path, nil)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil || len(turns) != 2 || len(turns[0].Texts) != 1 {
		t.Fatalf("turns %+v, err %v: the file written 200 ms late was not read", turns, err)
	}
}
