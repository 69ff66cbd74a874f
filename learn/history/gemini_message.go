package history

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// geminiToolCall is one tool call of a model message, with its result:
// {"id", "name", "args", "result": [{"functionResponse": {"response":
// {"output"}}}], "status": "success"|"error"|"cancelled"}.
type geminiToolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result json.RawMessage `json:"result"`
	Status string          `json:"status"`
}

// geminiMsg is what is kept of a message until the end of the file, when
// the list is final: a typed prompt, the tool calls of a model message, or
// the results of calls (a user message of functionResponse parts).
type geminiMsg struct {
	id      string
	prompt  string
	typed   bool
	at      time.Time
	calls   []geminiCall
	results []geminiCall
}

// geminiCall is one tool call, or one call's result (name, exit).
type geminiCall struct {
	id, name, status string
	skill            string // activate_skill's name, or a read SKILL.md's path
	command          string
	exit             int
}

var geminiExitRE = regexp.MustCompile(`Exit Code: (-?\d+)`)

// geminiPart is one part of a message's content: text, a model's
// functionCall (as a resumed session's $set writes its calls) or a tool's
// functionResponse.
type geminiPart struct {
	Text *string `json:"text"`
	Call *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	Response *struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Response struct {
			Output string `json:"output"`
		} `json:"response"`
	} `json:"functionResponse"`
}

// geminiMessage keeps what the turns need of a message.
func geminiMessage(rec geminiRecord) geminiMsg {
	m := geminiMsg{id: rec.ID, at: parseTime(rec.Timestamp)}
	var parts []geminiPart
	var s string
	if json.Unmarshal(rec.Content, &s) == nil {
		parts = []geminiPart{{Text: &s}}
	} else {
		_ = json.Unmarshal(rec.Content, &parts)
	}
	switch rec.Type {
	case "user":
		var texts []string
		for _, p := range parts {
			switch {
			case p.Response != nil:
				m.results = append(m.results, geminiCall{id: p.Response.ID, name: p.Response.Name, exit: exitOf(p.Response.Response.Output)})
			case p.Text != nil:
				texts = append(texts, *p.Text)
			}
		}
		if len(m.results) == 0 {
			m.prompt, m.typed = geminiPrompt(strings.Join(texts, ""))
		}
	case "gemini":
		for _, c := range rec.ToolCalls {
			if gc, ok := geminiToolCallOf(c.ID, c.Name, c.Args); ok {
				gc.status, gc.exit = c.Status, geminiExit(c.Result)
				m.calls = append(m.calls, gc)
			}
		}
		if len(rec.ToolCalls) == 0 {
			for _, p := range parts {
				if p.Call == nil {
					continue
				}
				if gc, ok := geminiToolCallOf(p.Call.ID, p.Call.Name, p.Call.Args); ok {
					m.calls = append(m.calls, gc)
				}
			}
		}
	}
	return m
}

// geminiToolCallOf reads a call of the tools that load a skill or run a
// command.
func geminiToolCallOf(id, name string, raw json.RawMessage) (geminiCall, bool) {
	var args struct {
		Name     string `json:"name"`
		FilePath string `json:"file_path"`
		Command  string `json:"command"`
	}
	_ = json.Unmarshal(raw, &args)
	gc := geminiCall{id: id, name: name}
	switch name {
	case "activate_skill":
		gc.skill = args.Name
	case "read_file":
		gc.skill = args.FilePath
	case "run_shell_command":
		gc.command = args.Command
	default:
		return gc, false
	}
	return gc, true
}

// geminiPrompt is the text of a user message when the user typed it: not
// what Gemini CLI itself leaves out of a resumed conversation (a /command
// or ?help, its <session_context>, a hook's <hook_context>).
func geminiPrompt(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, ignored := range []string{"/", "?", "<session_context>", "<hook_context>"} {
		if s == "" || strings.HasPrefix(s, ignored) {
			return "", false
		}
	}
	return clipPrompt(s), true
}

// geminiExit reads run_shell_command's exit code: its output says "Exit
// Code: N" only when N is not 0.
func geminiExit(result json.RawMessage) int {
	var parts []struct {
		Response struct {
			Response struct {
				Output string `json:"output"`
			} `json:"response"`
		} `json:"functionResponse"`
	}
	if json.Unmarshal(result, &parts) != nil {
		return 0
	}
	for _, p := range parts {
		if n := exitOf(p.Response.Response.Output); n != 0 {
			return n
		}
	}
	return 0
}

// exitOf reads "Exit Code: N" in run_shell_command's output.
func exitOf(output string) int {
	if m := geminiExitRE.FindStringSubmatch(output); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	return 0
}
