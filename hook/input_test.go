package hook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/megagit/megagit/decisionlog"
)

func TestSanitizeIDAndProjectWords(t *testing.T) {
	for in, want := range map[string]string{
		"0193-abc_D.e": "0193-abc_D.e", "a_b": "a_b", "a/b": "a%2Fb", "a\tb": "a%09b", "a%2Fb": "a%252Fb",
		"../../etc/passwd": "%2E.%2F..%2Fetc%2Fpasswd", "": "%", "..": "%2E%2E", "x.": "x%2E",
	} {
		if got := SanitizeID(in); got != want {
			t.Errorf("SanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("a", 200)
	if a, b := SanitizeID(long), SanitizeID(long+"b"); a == b || len(a) != 128 || !strings.HasPrefix(a, strings.Repeat("a", 96)+"~") {
		t.Errorf("long ids: %q, %q", a, b)
	}
	if got := SanitizeID(strings.Repeat("/", 100)); len(got) > 128 || strings.Contains(got[:strings.Index(got, "~")], "%2") && len(got[:strings.Index(got, "~")])%3 != 0 {
		t.Errorf("a %%XX split: %q", got)
	}
	if got := ProjectWords("/home/dev/Payments-API_v2/"); got != "payments api v2" {
		t.Errorf("ProjectWords = %q", got)
	}
}

// FuzzSessionFile: a session id's file name is safe (no '/', no leading
// dot, at most 128 bytes) and names that id alone: a short one decodes
// back to the id, a long one carries a hash of it.
func FuzzSessionFile(f *testing.F) {
	for _, id := range []string{"0193e3f0-5d2a-7c1b", "a/b", "a\tb", "a_b", "..", "", "%41", strings.Repeat("é/", 80)} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		name := SanitizeID(id)
		if name == "" || len(name) > 128 || strings.ContainsAny(name, "/\\\x00") || name[0] == '.' {
			t.Fatalf("SanitizeID(%q) = %q", id, name)
		}
		if strings.Contains(name, "~") {
			if name[strings.Index(name, "~")+1:] != decisionlog.PromptHash(id)[:31] {
				t.Fatalf("long name %q lacks the id's hash", name)
			}
			return
		}
		var dec strings.Builder
		for i := 0; i < len(name); i++ {
			if name[i] == '%' && i+2 < len(name) {
				var b byte
				if _, err := fmt.Sscanf(name[i+1:i+3], "%02X", &b); err != nil {
					t.Fatalf("bad escape in %q", name)
				}
				dec.WriteByte(b)
				i += 2
				continue
			}
			dec.WriteByte(name[i])
		}
		if id != "" && dec.String() != id {
			t.Fatalf("SanitizeID(%q) = %q decodes to %q", id, name, dec.String())
		}
	})
}

// Copilot CLI's own events (camelCase; its hooks reference and the
// payloads 1.0.102 sent in the e2e run) and the Claude Code form it sends
// a project's .claude/settings.json hooks.
func TestParseCopilotInput(t *testing.T) {
	stop, err := ParseInput([]byte(`{"sessionId":"b8ca60b9-38ad-4c9c-b6d5-85f99f6cf259","timestamp":1796281404571,"cwd":"/p","transcriptPath":"/h/.copilot/session-state/b8ca60b9-38ad-4c9c-b6d5-85f99f6cf259/events.jsonl","stopReason":"end_turn","stop_hook_active":false}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if stop.SessionID != "b8ca60b9-38ad-4c9c-b6d5-85f99f6cf259" || !strings.HasSuffix(stop.TranscriptPath, "/events.jsonl") || stop.Cwd != "/p" {
		t.Errorf("agentStop = %+v", stop)
	}
	if stop.SessionEnded() || stop.FromCopilot() {
		t.Errorf("agentStop: ended %v, Claude Code form %v; want neither", stop.SessionEnded(), stop.FromCopilot())
	}
	end, _ := ParseInput([]byte(`{"sessionId":"s1","timestamp":1,"cwd":"/p","reason":"complete"}`), false)
	if !end.SessionEnded() {
		t.Error("sessionEnd (a reason, no event name) not seen as the session's end")
	}
	prompt, err := ParseInput([]byte(`{"sessionId":"s1","timestamp":1,"cwd":"/p","prompt":"fix the flaky test"}`), true)
	if err != nil || prompt.Prompt != "fix the flaky test" || prompt.SessionID != "s1" {
		t.Errorf("userPromptSubmitted = %+v, %v", prompt, err)
	}
	start, _ := ParseInput([]byte(`{"sessionId":"s1","timestamp":1,"cwd":"/p","source":"new","initialPrompt":"hi"}`), false)
	if start.StartSource() != SourceStartup {
		t.Errorf("sessionStart source new = %q, want startup", start.StartSource())
	}
	claude, _ := ParseInput([]byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","timestamp":"2026-12-03T07:05:29.863Z","cwd":"/p","prompt":"hello"}`), true)
	if !claude.FromCopilot() || CheckSender(AgentClaude, claude) == nil || CheckSender(AgentCopilot, claude) != nil {
		t.Error("Copilot's Claude Code form: want the claude hook to step aside")
	}
	real, _ := ParseInput([]byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/p","prompt":"hello"}`), true)
	if real.FromCopilot() || CheckSender(AgentClaude, real) != nil {
		t.Error("Claude Code's own event taken for Copilot's")
	}
}
