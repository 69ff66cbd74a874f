package hook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Output modes of the prompt hook (config hook.output).
const (
	OutputText = "text"
	OutputJSON = "json"
)

// ReportInstruction asks the model for one tag per skill it used; the stop
// hook reads these tags back from assistant text.
const ReportInstruction = `megagit: if you use one of these skills, end your answer with one line per skill you actually used:
<skill-used name="SKILL" verdict="HELPFUL|HARMFUL|NEUTRAL" reason="one short sentence"/>
Leave out skills you did not use.`

// InjectionText builds the text added to the model's context: the rendered
// skills (with their SKILL.md paths), the names of skills already loaded
// earlier in the session, and the report instruction. Empty when there is
// nothing to say.
func InjectionText(rendered string, already []string) string {
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
		fmt.Fprintf(&b, "megagit: already loaded in this session (see above): %s\n", strings.Join(already, ", "))
	}
	b.WriteString(ReportInstruction)
	b.WriteString("\n")
	return b.String()
}

// Render wraps injection text in the agent's output contract.
//   - Claude Code UserPromptSubmit: plain stdout is added to the context; the
//     JSON form is {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
//     "additionalContext": ...}} (code.claude.com/docs/en/hooks).
//   - Codex UserPromptSubmit: the same JSON shape
//     (user-prompt-submit.command.output.schema.json); always JSON.
//   - Gemini CLI BeforeAgent: stdout must be JSON only;
//     hookSpecificOutput.additionalContext is appended to the prompt.
//
// Empty text renders as empty output: printing nothing is valid for all three.
func Render(agent, mode, text string) (string, error) {
	if text == "" {
		return "", nil
	}
	event := "UserPromptSubmit"
	switch agent {
	case AgentClaude:
		if mode != OutputJSON {
			return text, nil
		}
	case AgentCodex:
	case AgentGemini:
		event = "BeforeAgent"
	default:
		return "", CheckAgent(agent)
	}
	out := map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": event, "additionalContext": text,
	}}
	data, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(data) + "\n", nil
}
