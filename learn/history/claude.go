package history

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
)

// claudeLine is the part of a Claude Code transcript line read here. Each
// line is a JSON object; the lines of the conversation are {"type":
// "user"|"assistant", "sessionId", "cwd", "timestamp", "isSidechain",
// "isMeta", "message": {"role", "content": a string or blocks}}. Claude
// Code 2.1.332 also writes "attachment", "api-request*", "queue-operation",
// "last-prompt", "system" and other lines, ignored.
type claudeLine struct {
	Type               string                    `json:"type"`
	SessionID          string                    `json:"sessionId"`
	Cwd                string                    `json:"cwd"`
	Timestamp          string                    `json:"timestamp"`
	IsSidechain        bool                      `json:"isSidechain"`
	IsMeta             bool                      `json:"isMeta"`
	IsCompactSummary   bool                      `json:"isCompactSummary"`
	IsTranscriptOnly   bool                      `json:"isVisibleInTranscriptOnly"`
	PromptSource       string                    `json:"promptSource"`
	Origin             struct{ Kind string }     `json:"origin"`
	ToolDenialKind     string                    `json:"toolDenialKind"`
	PermissionDecision struct{ Decision string } `json:"permissionDecision"`
	Message            struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// claudeBlock is one content block: {"type": "text", "text"}, {"type":
// "tool_use", "id", "name", "input"}, {"type": "tool_result",
// "tool_use_id", "content", "is_error"}.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

var (
	claudeUser      = []byte(`"user"`)
	claudeAssistant = []byte(`"assistant"`)
)

// readClaude reads a Claude Code transcript. Sidechain lines (a subagent's
// conversation, whose prompt the model wrote) and meta lines (a skill's
// expanded text, reminders) never count.
func readClaude(r io.Reader, t *turns, res *Result) error {
	return eachLine(r, res, func(line []byte) {
		if !bytes.Contains(line, claudeUser) && !bytes.Contains(line, claudeAssistant) {
			return
		}
		var l claudeLine
		if json.Unmarshal(line, &l) != nil {
			res.Junk++
			return
		}
		if l.IsSidechain {
			return
		}
		if l.SessionID != "" && t.id == "" {
			t.id = l.SessionID
		}
		if l.Cwd != "" {
			t.cwd = l.Cwd
		}
		switch l.Type {
		case "user":
			claudeUserLine(t, l)
		case "assistant":
			claudeAssistantLine(t, l)
		}
	})
}

// claudeUserLine reads a user line: a typed prompt, a slash command, a
// tool's result, or something Claude Code wrote in the user's name.
func claudeUserLine(t *turns, l claudeLine) {
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		claudePrompt(t, l, s)
		return
	}
	var blocks []claudeBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return
	}
	var texts []string
	results := false
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			results = true
			denied := l.ToolDenialKind != "" || l.PermissionDecision.Decision == "reject"
			t.result(b.ToolUseID, b.IsError, denied)
		}
	}
	if !results && len(texts) > 0 {
		claudePrompt(t, l, strings.Join(texts, "\n"))
	}
}

// claudePrompt reads the text of a user line that is not a tool result.
func claudePrompt(t *turns, l claudeLine, s string) {
	p := strings.TrimSpace(s)
	switch {
	case p == "" || l.IsMeta || l.IsCompactSummary || l.IsTranscriptOnly:
	case strings.HasPrefix(p, "[Request interrupted by user"):
		t.interrupted()
	case l.Origin.Kind != "" || l.PromptSource == "system" || strings.HasPrefix(p, "<task-notification>"):
		t.untyped()
	case strings.HasPrefix(p, "<command-"):
		if name, args, ok := slashCommand(p); ok {
			t.typed(args, parseTime(l.Timestamp))
			t.use(name, "", HowSlash)
		}
	case strings.HasPrefix(p, "<local-command-") || strings.HasPrefix(p, "<bash-") || strings.HasPrefix(p, "<user-memory-input>"):
		// The output of a command run in Claude Code, or the user's own
		// `!` shell or `#` memory line: not a prompt to the model.
	default:
		t.typed(p, parseTime(l.Timestamp))
	}
}

// slashCommand reads the user line Claude Code writes for a slash command:
// <command-name>/NAME</command-name>, <command-message>…</command-message>
// and <command-args>ARGS</command-args>, in either order, and nothing
// else. NAME is a skill's (a plugin's skill "plugin:name") or a built-in
// command's (/compact, /clear): the caller tells them apart.
func slashCommand(p string) (name, args string, ok bool) {
	rest := p
	take := func(tag string, last bool) (string, bool) {
		open, end := "<"+tag+">", "</"+tag+">"
		i := strings.Index(rest, open)
		if i < 0 {
			return "", false
		}
		j := strings.Index(rest[i:], end)
		if last {
			j = strings.LastIndex(rest[i:], end)
		}
		if j < 0 {
			return "", false
		}
		v := rest[i+len(open) : i+j]
		rest = rest[:i] + rest[i+j+len(end):]
		return v, true
	}
	name, ok = take("command-name", false)
	if !ok {
		return "", "", false
	}
	take("command-message", false)
	args, _ = take("command-args", true)
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	if strings.TrimSpace(rest) != "" || name == "" || strings.ContainsAny(name, " \t\n<>") {
		return "", "", false
	}
	return name, args, true
}

// claudeAssistantLine reads the assistant's tool calls: the Skill tool, a
// Read of a SKILL.md, a Bash command (which may read one too).
func claudeAssistantLine(t *turns, l claudeLine) {
	var blocks []claudeBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		if b.Type != "tool_use" {
			continue
		}
		switch b.Name {
		case "Skill":
			t.own(b.ID, t.use(skillToolName(b.Input), "", HowSkillTool))
		case "Read":
			var in struct {
				FilePath string `json:"file_path"`
			}
			if json.Unmarshal(b.Input, &in) == nil {
				if skill, p := skillOf(in.FilePath, t.cwd); skill != "" {
					t.own(b.ID, t.use(skill, p, HowRead))
				}
			}
		case "Bash":
			var in struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(b.Input, &in) != nil {
				continue
			}
			for _, p := range shellReads(in.Command) {
				if skill, abs := skillOf(p, t.cwd); skill != "" {
					t.use(skill, abs, HowRead)
				}
			}
			t.command(b.ID)
		}
	}
}

// skillToolName is the skill a Skill tool call loads: {"skill": NAME}
// (older Claude Code versions: {"command": NAME}); "" for anything else.
func skillToolName(input json.RawMessage) string {
	var in struct {
		Skill   string `json:"skill"`
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	name := in.Skill
	if name == "" {
		name = in.Command
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	if strings.ContainsAny(name, " \t\n") || filepath.Base(name) != name {
		return ""
	}
	return name
}
