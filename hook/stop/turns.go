package stop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
)

// sessionTurns reads the Claude Code or Copilot CLI transcript, or
// rebuilds the turns from the session memory and the event's final answer
// (Codex, Gemini CLI, opencode, and Claude Code when its transcript is not
// written yet).
func sessionTurns(agent string, in hook.Input, sess *hook.Session, logf func(error)) ([]Turn, error) {
	final := in.FinalAnswer()
	if agent == hook.AgentCopilot && in.TranscriptPath == "" {
		in.TranscriptPath = copilotTranscript(in.SessionID)
	}
	if agent == hook.AgentCopilot && in.TranscriptPath != "" {
		turns, err := readCopilot(in.TranscriptPath, logf)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return turns, err
		}
		// sessionEnd names no transcript; an agentStop's may be gone.
	}
	if agent == hook.AgentClaude && in.TranscriptPath != "" {
		f, err := openTranscript(in.TranscriptPath, logf)
		switch {
		case err == nil:
			defer f.Close()
			t, err := ReadClaudeTranscript(f, in.SessionID)
			return t.Turns, err
		case !errors.Is(err, os.ErrNotExist) || final == "":
			return nil, err
		}
		// Claude Code in -p mode may run the Stop hook before it has
		// written the transcript; the event carries the turn's answer.
		if logf != nil {
			logf(fmt.Errorf("%w: read the event's last_assistant_message instead", err))
		}
	}
	return rememberedTurns(sess, final, "final:"+decisionlog.PromptHash(final)[:16]), nil
}

// openTranscript opens a transcript for reading: a regular file only (a
// FIFO or a device is refused before anything is read, and the open never
// blocks), its last MaxTranscript bytes when it is larger, which is logged.
func openTranscript(path string, logf func(error)) (io.ReadCloser, error) {
	f, skipped, err := local.OpenTail(path, MaxTranscript)
	if err != nil {
		return nil, fmt.Errorf("transcript_path: %w", err)
	}
	if skipped > 0 && logf != nil {
		logf(fmt.Errorf("transcript %s is larger than %s: read only its last %s (skipped %d bytes)", path, local.Size(MaxTranscript), local.Size(MaxTranscript), skipped))
	}
	return f, nil
}

// rememberedTurns rebuilds turns from remembered prompts, for agents whose
// transcript megagit does not read; final is the turn's last answer, if
// known. Turns before FirstTurn have empty prompts (no correction or
// success signal), except those that triggered an injection: they get
// their prompt back from it, so LocateTurn still finds the injection's own
// turn.
func rememberedTurns(s *hook.Session, final, finalKey string) []Turn {
	turns := make([]Turn, len(s.Prompts))
	for i, p := range s.Prompts {
		turns[i].Prompt = p
	}
	for _, inj := range s.Injections {
		if t := inj.Turn; t >= 0 && t < min(s.FirstTurn, len(turns)) {
			turns[t].Prompt = inj.Prompt
		}
	}
	if final != "" && len(turns) > 0 {
		last := &turns[len(turns)-1]
		last.Texts = append(last.Texts, Text{Key: finalKey, Text: final})
	}
	return turns
}

// LocateTurn finds the transcript turn of an injection: the turn whose
// prompt equals the remembered one, nearest to the remembered index; the
// remembered index itself when no prompt matches.
func LocateTurn(turns []Turn, inj hook.Injection) int {
	want := strings.Join(strings.Fields(inj.Prompt), " ")
	best, bestDist := -1, 0
	for i, t := range turns {
		if hook.Clip(t.Prompt, hook.MaxPromptMemory) != want {
			continue
		}
		d := i - inj.Turn
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestDist {
			best, bestDist = i, d
		}
	}
	if best >= 0 {
		return best
	}
	if inj.Turn < len(turns) {
		return inj.Turn
	}
	return -1
}

// copilotTranscript is where Copilot CLI keeps a session's events
// ($COPILOT_HOME, else ~/.copilot, then session-state/<id>/events.jsonl),
// for its sessionEnd, which names no transcript; "" for an id that is not
// a plain file name.
func copilotTranscript(session string) string {
	if session == "" || hook.SanitizeID(session) != session {
		return ""
	}
	dir := os.Getenv("COPILOT_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".copilot")
	}
	return filepath.Join(dir, "session-state", session, "events.jsonl")
}

// copilotSettle bounds how long the stop hook waits for Copilot CLI to
// write the turn: its agentStop hook can start before the turn's lines
// (user.message, assistant.message) reach events.jsonl, which 1.0.102
// writes in batches.
const copilotSettle = 2 * time.Second

// readCopilot reads a Copilot CLI session file, again every 50 ms while
// it has no turn or its last turn no answer yet, for at most
// copilotSettle.
func readCopilot(path string, logf func(error)) ([]Turn, error) {
	until := time.Now().Add(copilotSettle)
	for {
		f, err := openTranscript(path, logf)
		if errors.Is(err, fs.ErrNotExist) && time.Now().Before(until) {
			time.Sleep(50 * time.Millisecond) // written at its first flush
			continue
		}
		if err != nil {
			return nil, err
		}
		t, err := ReadCopilotTranscript(f)
		f.Close()
		if err != nil || len(t.Turns) > 0 && len(t.Turns[len(t.Turns)-1].Texts) > 0 || time.Now().After(until) {
			return t.Turns, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
