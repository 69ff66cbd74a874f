package history

import (
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// codexLine is one line of a Codex rollout: {"timestamp", "type":
// "session_meta"|"turn_context"|"event_msg"|"response_item"|…, "payload"}.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload holds the fields read of every payload type.
type codexPayload struct {
	// session_meta, turn_context
	ID     string          `json:"id"`
	Cwd    string          `json:"cwd"`
	Source json.RawMessage `json:"source"`
	// event_msg: user_message (message), item_completed (item),
	// exec_command_end (call_id, exit_code)
	Type     string         `json:"type"`
	Message  string         `json:"message"`
	Item     codexItem      `json:"item"`
	CallID   string         `json:"call_id"`
	ExitCode *int           `json:"exit_code"`
	Role     string         `json:"role"`
	Content  []codexContent `json:"content"`
	Meta     struct {
		Items []struct {
			Provenance struct{ Type string } `json:"provenance"`
		} `json:"content_item_metadata"`
	} `json:"internal_chat_message_metadata_passthrough"`
	// response_item: function_call (name, arguments, call_id),
	// function_call_output (call_id, output), local_shell_call (action)
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Action    struct {
		Command []string `json:"command"`
		Workdir string   `json:"working_directory"`
	} `json:"action"`
}

type codexItem struct {
	Type     string         `json:"type"`
	ID       string         `json:"id"`
	Content  []codexContent `json:"content"`
	ExitCode *int           `json:"exit_code"`
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexExitRE finds the exit code in a shell call's output text.
var codexExitRE = regexp.MustCompile(`(?:Process exited with code|[Ee]xit code:?) (-?\d+)`)

// readCodex reads a Codex rollout. A typed prompt is an event_msg:
// item_completed of a UserMessage (Codex 0.171.0) or user_message (older
// versions); the skills a $name mention expanded are the user-role
// <skill> messages Codex adds after it (provenance "skills"); the model's
// shell commands are function_call items (exec_command {"cmd"}, shell
// {"command": [...]}) or local_shell_call items, and their exit codes
// come in item_completed CommandExecution, exec_command_end or the
// function_call_output's text. A subagent's rollout (session_meta source
// {"subagent": …}) keeps no use.
func readCodex(r io.Reader, t *turns, res *Result) error {
	return eachLine(r, res, func(line []byte) {
		var l codexLine
		var p codexPayload
		if json.Unmarshal(line, &l) != nil || json.Unmarshal(l.Payload, &p) != nil {
			res.Junk++
			return
		}
		switch l.Type {
		case "session_meta":
			if p.ID != "" {
				t.id = p.ID
			}
			if p.Cwd != "" {
				t.cwd = p.Cwd
			}
			if len(p.Source) > 0 && p.Source[0] == '{' && strings.Contains(string(p.Source), `"subagent"`) {
				t.skip = true
			}
		case "turn_context":
			if p.Cwd != "" {
				t.cwd = p.Cwd
			}
		case "event_msg":
			// (A version writing a prompt both ways starts its turn
			// twice, with nothing in between: the same turn.)
			switch {
			case p.Type == "user_message":
				t.typed(p.Message, parseTime(l.Timestamp))
			case p.Type == "item_completed" && p.Item.Type == "UserMessage":
				t.typed(joinText(p.Item.Content), parseTime(l.Timestamp))
			case p.Type == "item_completed" && p.Item.Type == "CommandExecution" && p.Item.ExitCode != nil:
				t.result(p.Item.ID, *p.Item.ExitCode != 0, false)
			case p.Type == "exec_command_end" && p.ExitCode != nil:
				t.result(p.CallID, *p.ExitCode != 0, false)
			}
		case "response_item":
			codexItemLine(t, p)
		}
	})
}

// codexItemLine reads a response item: a <skill> expansion, a shell call
// or its output.
func codexItemLine(t *turns, p codexPayload) {
	switch p.Type {
	case "message":
		if p.Role != "user" {
			return
		}
		for _, m := range p.Meta.Items {
			if m.Provenance.Type != "" && m.Provenance.Type != "skills" {
				return // the user's own text, quoting a <skill> block
			}
		}
		text := joinText(p.Content)
		if clipPrompt(text) == t.prompt {
			return
		}
		if name, path, ok := codexSkill(text); ok {
			t.use(name, path, HowMention)
		}
	case "function_call":
		var in struct {
			Cmd     json.RawMessage `json:"cmd"`
			Command json.RawMessage `json:"command"`
			Workdir string          `json:"workdir"`
		}
		switch p.Name {
		case "exec_command", "shell", "shell_command", "container.exec", "local_shell":
		default:
			return
		}
		if json.Unmarshal([]byte(p.Arguments), &in) != nil {
			return
		}
		cmd := commandLine(in.Cmd)
		if cmd == "" {
			cmd = commandLine(in.Command)
		}
		codexCommand(t, p.CallID, cmd, in.Workdir)
	case "local_shell_call":
		codexCommand(t, p.CallID, shellJoin(p.Action.Command), p.Action.Workdir)
	case "function_call_output":
		if code, ok := codexOutputExit(p.Output); ok {
			t.result(p.CallID, code != 0, false)
		}
	}
}

// codexCommand registers a shell call, and the SKILL.md files it reads.
func codexCommand(t *turns, id, cmd, workdir string) {
	if workdir == "" {
		workdir = t.cwd
	}
	for _, p := range shellReads(cmd) {
		if skill, abs := skillOf(p, workdir); skill != "" {
			t.use(skill, abs, HowRead)
		}
	}
	t.command(id)
}

// codexSkill reads the message Codex adds when the user's $name names a
// skill: "<skill>\n<name>NAME</name>\n<path>…/SKILL.md</path>\n…</skill>".
func codexSkill(text string) (name, path string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "<skill>") || !strings.HasSuffix(text, "</skill>") {
		return "", "", false
	}
	field := func(tag string) string {
		_, v, found := strings.Cut(text, "<"+tag+">")
		if !found {
			return ""
		}
		v, _, found = strings.Cut(v, "</"+tag+">")
		if !found || strings.Contains(v, "\n") {
			return ""
		}
		return strings.TrimSpace(v)
	}
	name, path = field("name"), field("path")
	if name == "" || strings.ContainsAny(name, " \t<>") {
		return "", "", false
	}
	return name, path, true
}

// commandLine is a shell call's command: a string, or an argv joined (a
// `bash -lc SCRIPT` argv stays one, for shellReads to unwrap).
func commandLine(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return shellJoin(argv)
	}
	return ""
}

// shellJoin quotes an argv back into one command line.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// codexOutputExit reads a shell call's exit code from its output: the text
// "Process exited with code N" (0.171.0), or older versions' JSON
// {"output", "metadata": {"exit_code"}}.
func codexOutputExit(raw json.RawMessage) (int, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	var o struct {
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &o) == nil && o.Metadata.ExitCode != nil {
		return *o.Metadata.ExitCode, true
	}
	head, _, _ := strings.Cut(s, "\nOutput:") // not the command's own output
	if m := codexExitRE.FindStringSubmatch(head); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n, true
		}
	}
	return 0, false
}

func joinText(cs []codexContent) string {
	var texts []string
	for _, c := range cs {
		if c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}
