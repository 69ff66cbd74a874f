package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/megagit/megagit/safetext"
)

// Output modes of the prompt hook (config hook.output).
const (
	OutputText = "text"
	OutputJSON = "json"
)

// ReportInstruction asks the model for one tag per skill it used; the stop
// hook reads these tags back from assistant text. A prompt injection
// carries it only when no SessionStart hook gave the model
// SessionInstruction (Session.NeedsInstruction).
const ReportInstruction = `megagit: if you use one of these skills, end your answer with one line per skill you actually used:
<skill-used name="SKILL" verdict="HELPFUL|HARMFUL|NEUTRAL" reason="one short sentence"/>
Leave out skills you did not use.`

// SessionInstruction is what the SessionStart hook adds to the model's
// context once per session (and again after a compaction, resume or
// clear): the same request, for every skill of the session.
const SessionInstruction = `megagit: in this session megagit may suggest skills with your prompts. When you use a skill (one megagit suggested or one you loaded yourself), end that answer with one line per skill you actually used:
<skill-used name="SKILL" verdict="HELPFUL|HARMFUL|NEUTRAL" reason="one short sentence"/>
Leave out skills you did not use.
`

// GeminiReadNote follows the report instruction for Gemini CLI, whose
// read_file tool refuses a git-ignored file (a project registry keeps its
// skills in .megagit/, which git ignores) and a file outside the
// workspace (the user and team registries' skills): the model is told how
// else to open the SKILL.md a suggestion names.
const GeminiReadNote = `megagit: if read_file refuses a suggested SKILL.md (it skips git-ignored folders such as .megagit/ and files outside the workspace), read it with the shell instead: cat PATH.
`

// Instruction is the report instruction as agent needs it: report for
// every agent, with GeminiReadNote after it for Gemini CLI.
func Instruction(agent, report string) string {
	if agent == AgentGemini {
		return strings.TrimRight(report, "\n") + "\n" + GeminiReadNote
	}
	return report
}

// InjectionText builds the text added to the model's context: the rendered
// skills (with their SKILL.md paths), the names of skills already loaded
// earlier in the session, and then instruction ("" for none: the
// SessionStart hook gave it; see Instruction). Empty when there is
// nothing to say.
func InjectionText(rendered string, already []string, instruction string) string {
	rendered = strings.TrimRight(rendered, "\n")
	if rendered == "" && len(already) == 0 {
		return ""
	}
	var b strings.Builder
	if rendered != "" {
		b.WriteString(rendered)
		b.WriteString("\n")
	}
	if len(already) > 0 {
		fmt.Fprintf(&b, "megagit: already loaded in this session (see above): %s\n", safetext.Injected(strings.Join(already, ", ")))
	}
	if instruction != "" {
		b.WriteString(strings.TrimRight(instruction, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// The hook events megagit adds context on.
const (
	EventPrompt       = "prompt"        // UserPromptSubmit, Gemini's BeforeAgent, Copilot's userPromptSubmitted
	EventSessionStart = "session-start" // SessionStart (Copilot: sessionStart)
)

// Render wraps prompt injection text in the agent's output contract.
func Render(agent, mode, text string) (string, error) {
	return RenderEvent(EventPrompt, agent, mode, text)
}

// RenderEvent wraps text added on event in the agent's output contract.
//   - Claude Code UserPromptSubmit: plain stdout is added to the context; the
//     JSON form is {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
//     "additionalContext": ...}} (code.claude.com/docs/en/hooks).
//   - Codex UserPromptSubmit: the same JSON shape
//     (user-prompt-submit.command.output.schema.json); always JSON.
//   - Gemini CLI BeforeAgent: stdout must be JSON only;
//     hookSpecificOutput.additionalContext is appended to the prompt.
//   - SessionStart (all three): the same shapes with hookEventName
//     "SessionStart" (Codex: session-start.command.output.schema.json;
//     Gemini: the context is the first turn of the history).
//   - GitHub Copilot CLI userPromptSubmitted and sessionStart:
//     {"additionalContext": ...}; 1.0.102 appends a prompt's to the user
//     message in <system_reminder> tags and makes a session start's a
//     user message of its own (seen in the requests it sends; plain text
//     is ignored).
//   - opencode: plain text, which megagit's plugin adds to the system
//     prompt of the turn.
//
// Empty text renders as empty output: printing nothing is valid for all.
func RenderEvent(event, agent, mode, text string) (string, error) {
	if text == "" {
		return "", nil
	}
	name := "UserPromptSubmit"
	switch agent {
	case AgentClaude:
		if mode != OutputJSON {
			return text, nil
		}
	case AgentCodex:
	case AgentGemini:
		name = "BeforeAgent"
	case AgentOpencode:
		return text, nil
	case AgentCopilot:
		data, err := json.Marshal(map[string]string{"additionalContext": text})
		if err != nil {
			return "", err
		}
		return string(data) + "\n", nil
	default:
		return "", CheckAgent(agent)
	}
	if event == EventSessionStart {
		name = "SessionStart"
	}
	out := map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": name, "additionalContext": text,
	}}
	data, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}
