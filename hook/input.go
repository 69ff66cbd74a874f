// Package hook is what megagit's agent hooks share (Claude Code, Codex
// CLI, Gemini CLI, opencode, GitHub Copilot CLI): the agents, the event they send on stdin, what the
// prompt hook prints back, the session memory the prompt hook writes and
// the stop hook reads, and the words that tie a shell command to a skill
// (the local decision log is package decisionlog). It does no I/O:
// hook/inject (the prompt hook), hook/stop (the stop hook) and
// hook/install (the agents' settings files) do. megagit-hook links this
// package, so it stays small.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/megagit/megagit/decisionlog"
)

// Agents megagit has adapters for.
const (
	AgentClaude = "claude"
	AgentCodex  = "codex"
	AgentGemini = "gemini"
	// AgentOpencode is opencode: megagit's hooks run from a plugin of its
	// own (hook/install writes it), which sends the events below.
	AgentOpencode = "opencode"
	// AgentCopilot is GitHub Copilot CLI (.github/hooks/*.json).
	AgentCopilot = "copilot"
)

// Agents lists the supported agents, for flag help and validation.
var Agents = []string{AgentClaude, AgentCodex, AgentGemini, AgentOpencode, AgentCopilot}

// AgentList is Agents for a flag's help: "claude, codex, ... or copilot".
func AgentList() string {
	return strings.Join(Agents[:len(Agents)-1], ", ") + " or " + Agents[len(Agents)-1]
}

// CheckAgent rejects an agent megagit has no adapter for.
func CheckAgent(agent string) error {
	for _, a := range Agents {
		if a == agent {
			return nil
		}
	}
	return fmt.Errorf("unknown agent %q (want %s)", agent, strings.Join(Agents, ", "))
}

// Input is what an agent sends a hook on stdin. The field names are the
// agents' own: Claude Code (UserPromptSubmit, Stop, SessionEnd), Codex
// (UserPromptSubmit, Stop: codex-rs/hooks/schema/generated/*.input.schema.json)
// and Gemini CLI (BeforeAgent, AfterAgent: docs/hooks/reference.md) share
// session_id, transcript_path, cwd and hook_event_name. GitHub Copilot
// CLI sends its own events in camelCase (sessionId, transcriptPath: its
// hooks reference), and megagit's opencode plugin sends Codex's names.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	// CopilotSessionID and CopilotTranscript are Copilot CLI's names of
	// the two (ParseInput moves them to SessionID and TranscriptPath).
	CopilotSessionID  string `json:"sessionId"`
	CopilotTranscript string `json:"transcriptPath"`
	// Reason is a session end's (Claude Code's SessionEnd, Copilot CLI's
	// sessionEnd, which names no event).
	Reason string `json:"reason"`
	// Timestamp is sent by Copilot CLI only: a number in its own events,
	// an ISO 8601 string in the Claude Code form it sends the hooks of a
	// project's .claude/settings.json (FromCopilot).
	Timestamp     json.RawMessage `json:"timestamp"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	Prompt        string          `json:"prompt"`
	// LastAssistantMessage is Codex's Stop field; PromptResponse Gemini's
	// AfterAgent one: the final answer of the turn, i.e. assistant text.
	LastAssistantMessage string `json:"last_assistant_message"`
	PromptResponse       string `json:"prompt_response"`
	// Source is SessionStart's: startup, resume, clear or (Claude Code)
	// compact. Trigger is the field some Gemini CLI versions send instead.
	Source  string `json:"source"`
	Trigger string `json:"trigger"`
}

// SessionStart sources (the matcher values of the agents' SessionStart).
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"
)

// StartSource is a SessionStart event's source, "startup" when unsaid.
func (in Input) StartSource() string {
	for _, s := range []string{in.Source, in.Trigger} {
		switch s {
		case SourceStartup, SourceResume, SourceClear, SourceCompact:
			return s
		}
	}
	return SourceStartup
}

// Compaction reports an event sent around a compaction by an agent whose
// SessionStart does not fire after one: Gemini CLI's PreCompress, Codex's
// PostCompact (and Claude Code's PreCompact, should one be wired).
func (in Input) Compaction() bool {
	switch in.HookEventName {
	case "PreCompress", "PostCompact", "PreCompact":
		return true
	}
	return false
}

// MaxInput caps the stdin a hook reads (prompts can be long, not this long).
const MaxInput = 8 << 20

// ErrBadInput marks stdin that is not a hook event.
var ErrBadInput = errors.New("malformed hook input")

// ParseInput decodes one hook event. needPrompt requires a prompt (the
// prompt hook); the stop hook can live without one.
func ParseInput(data []byte, needPrompt bool) (Input, error) {
	var in Input
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return in, fmt.Errorf("%w: not a JSON object", ErrBadInput)
	}
	if len(data) > MaxInput {
		return in, fmt.Errorf("%w: larger than %d bytes", ErrBadInput, MaxInput)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if dec.More() {
		return in, fmt.Errorf("%w: trailing data after the JSON object", ErrBadInput)
	}
	if needPrompt && strings.TrimSpace(in.Prompt) == "" {
		return in, fmt.Errorf("%w: no prompt", ErrBadInput)
	}
	if in.SessionID == "" {
		in.SessionID = in.CopilotSessionID
	}
	if in.TranscriptPath == "" {
		in.TranscriptPath = in.CopilotTranscript
	}
	if !utf8.ValidString(in.Prompt) {
		in.Prompt = strings.ToValidUTF8(in.Prompt, "\uFFFD")
	}
	in.Prompt = WithoutHookContext(in.Prompt)
	if needPrompt && strings.TrimSpace(in.Prompt) == "" {
		return in, fmt.Errorf("%w: no prompt besides hooks' context", ErrBadInput)
	}
	return in, nil
}

// WithoutHookContext is a prompt without the context hooks added to it:
// Gemini CLI puts what a SessionStart hook printed (megagit's own
// instruction among it) into the user's message, in <hook_context>
// blocks, and passes that message to the next hook as its prompt. Routing
// and remembering the prompt must see the user's words only, not
// megagit's ("session", "skill", "suggest"), or a "hi there" would fetch
// skills.
func WithoutHookContext(prompt string) string {
	const open, end = "<hook_context>", "</hook_context>"
	if !strings.Contains(prompt, open) {
		return prompt
	}
	var b strings.Builder
	rest := prompt
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		j := strings.Index(rest[i:], end)
		if j < 0 {
			break // an unclosed block: everything after its start is context
		}
		rest = rest[i+j+len(end):]
	}
	return strings.TrimSpace(b.String())
}

// FinalAnswer is the turn's final assistant text when the agent sends it
// with the stop event (Codex, Gemini), "" otherwise.
func (in Input) FinalAnswer() string {
	if in.LastAssistantMessage != "" {
		return in.LastAssistantMessage
	}
	return in.PromptResponse
}

// SessionEnded reports an end-of-session event (Claude Code's SessionEnd,
// Gemini's SessionEnd, Copilot CLI's sessionEnd: a reason and no event
// name): pending implicit outcomes are settled then.
func (in Input) SessionEnded() bool {
	return in.HookEventName == "SessionEnd" || in.HookEventName == "" && in.CopilotSessionID != "" && in.Reason != ""
}

// FromCopilot reports an event GitHub Copilot CLI sent in Claude Code's
// form: Copilot runs the hooks of a project's .claude/settings.json too,
// with a timestamp Claude Code never sends. megagit's Claude Code hooks
// leave such an event to its Copilot CLI hooks (`hook install --agent
// copilot`), or a project with both would be routed twice per prompt.
func (in Input) FromCopilot() bool {
	return len(in.Timestamp) > 0 && in.Timestamp[0] == '"'
}

// ProjectWords turns a working directory into the words of its base name
// ("payments-api" -> "payments api"), which join the prompt in routing
// (the project says what the prompt is about). Plain words, so the lexical
// channel sees no "project" token that could match skills about projects.
func ProjectWords(cwd string) string {
	if cwd == "" {
		return ""
	}
	base := filepath.Base(filepath.Clean(cwd))
	if base == "/" || base == "." {
		return ""
	}
	f := strings.FieldsFunc(base, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	return strings.ToLower(strings.Join(f, " "))
}

// SanitizeID is a session id's file name: safe (no '/', no leading dot,
// at most 128 bytes) and distinct for distinct ids, so one session never
// reads another's memory. An id of letters, digits, '-', '_' and inner
// dots (Claude Code's UUIDs, Codex's and Gemini's ids) is its own name;
// any other byte is written %XX ('%' included, a dot at either end too),
// and a name that would pass 128 bytes keeps its first 96 and ends in '~'
// and a hash of the whole id. '%' and '~' never occur in a plain id, so
// the three forms never meet.
func SanitizeID(id string) string {
	const max = 128
	if plainID(id) && len(id) <= max {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '.' && i > 0 && i < len(id)-1 || c != '.' && plainByte(c) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	name := b.String()
	if name == "" {
		return "%" // no id encodes to a lone '%'
	}
	if len(name) <= max {
		return name
	}
	cut := 96
	for cut > 0 && strings.LastIndexByte(name[cut-min(cut, 2):cut], '%') >= 0 {
		cut-- // never split a %XX
	}
	return name[:cut] + "~" + decisionlog.PromptHash(id)[:31]
}

// plainID reports whether id is its own file name.
func plainID(id string) bool {
	if id == "" || id[0] == '.' || id[len(id)-1] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !plainByte(id[i]) && id[i] != '.' {
			return false
		}
	}
	return true
}

func plainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
