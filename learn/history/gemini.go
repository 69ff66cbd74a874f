package history

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// geminiRecord is one record of a Gemini CLI chat. Gemini CLI 0.61.0
// writes a JSONL log: a header {"sessionId", "projectHash", "startTime",
// "kind": "main"|"subagent"}, message records {"id", "timestamp", "type":
// "user"|"gemini"|"info"|…, "content", "toolCalls"} (a record with the id
// of an earlier one replaces it: a model message is written again with its
// tool calls), {"$set": {…}} (with "messages": the whole list, replaced,
// as a resumed session starts) and {"$rewindTo": ID} (the messages from ID
// on dropped). Older versions wrote one JSON object, the header with its
// "messages".
type geminiRecord struct {
	ID        string           `json:"id"`
	Type      string           `json:"type"`
	Timestamp string           `json:"timestamp"`
	Content   json.RawMessage  `json:"content"`
	ToolCalls []geminiToolCall `json:"toolCalls"`

	SessionID string          `json:"sessionId"`
	Kind      string          `json:"kind"`
	Messages  json.RawMessage `json:"messages"`
	Set       *struct {
		SessionID string          `json:"sessionId"`
		Messages  json.RawMessage `json:"messages"`
	} `json:"$set"`
	RewindTo *string `json:"$rewindTo"`
}

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

// geminiLog is the message list as the records leave it, in order.
type geminiLog struct {
	msgs  []geminiMsg
	index map[string]int
	// times is when each message was first written: a resumed session
	// sets the whole list again with every message dated then.
	times map[string]time.Time
	t     *turns
}

func newGeminiLog(t *turns) *geminiLog {
	return &geminiLog{index: map[string]int{}, times: map[string]time.Time{}, t: t}
}

func (g *geminiLog) set(m geminiMsg) {
	if at, ok := g.times[m.id]; ok && !at.IsZero() {
		m.at = at
	} else {
		g.times[m.id] = m.at
	}
	if i, ok := g.index[m.id]; ok {
		g.msgs[i] = m
		return
	}
	g.index[m.id] = len(g.msgs)
	g.msgs = append(g.msgs, m)
}

func (g *geminiLog) rewind(id string) {
	i, ok := g.index[id]
	if !ok {
		i = 0
	}
	for _, m := range g.msgs[i:] {
		delete(g.index, m.id)
	}
	g.msgs = g.msgs[:i]
}

// add reads a list of messages ("messages" of a header or a $set).
func (g *geminiLog) add(raw json.RawMessage, res *Result) {
	var recs []json.RawMessage
	if json.Unmarshal(raw, &recs) != nil {
		res.Junk++
		return
	}
	for _, r := range recs {
		var rec geminiRecord
		if json.Unmarshal(r, &rec) == nil && rec.ID != "" {
			g.set(geminiMessage(rec))
		}
	}
}

// record applies one record of the log.
func (g *geminiLog) record(rec geminiRecord, res *Result) {
	switch {
	case rec.RewindTo != nil:
		g.rewind(*rec.RewindTo)
	case rec.Set != nil:
		if rec.Set.SessionID != "" {
			g.t.id = rec.Set.SessionID
		}
		if len(rec.Set.Messages) > 0 {
			g.msgs, g.index = g.msgs[:0], map[string]int{}
			g.add(rec.Set.Messages, res)
		}
	case rec.ID != "":
		g.set(geminiMessage(rec))
	case rec.SessionID != "":
		g.t.id = rec.SessionID
		if rec.Kind == "subagent" {
			g.t.skip = true
		}
		if len(rec.Messages) > 0 {
			g.add(rec.Messages, res)
		}
	}
}

// readGemini reads a Gemini CLI chat log (JSONL).
func readGemini(r io.Reader, t *turns, res *Result) error {
	g := newGeminiLog(t)
	err := eachLine(r, res, func(line []byte) {
		var rec geminiRecord
		if json.Unmarshal(line, &rec) != nil {
			res.Junk++
			return
		}
		g.record(rec, res)
	})
	g.replay()
	return err
}

// readGeminiJSON reads an older Gemini CLI chat: one JSON object (often
// indented over many lines), read a message at a time; the file cap bounds
// it, the line cap does not apply.
func readGeminiJSON(r io.Reader, t *turns, res *Result) error {
	g := newGeminiLog(t)
	defer g.replay()
	dec := json.NewDecoder(io.LimitReader(r, MaxFile))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		res.Junk++
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			res.Junk++
			return nil
		}
		switch key, _ := tok.(string); key {
		case "sessionId", "kind":
			var v string
			if dec.Decode(&v) != nil {
				res.Junk++
				return nil
			}
			if key == "sessionId" {
				t.id = v
			} else if v == "subagent" {
				t.skip = true
			}
		case "messages":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				res.Junk++
				return nil
			}
			for dec.More() {
				var rec geminiRecord
				if err := dec.Decode(&rec); err != nil {
					res.Junk++
					return nil
				}
				res.Lines++
				if rec.ID != "" {
					g.set(geminiMessage(rec))
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil
			}
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				res.Junk++
				return nil
			}
		}
	}
	return nil
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

// replay turns the final message list into uses.
func (g *geminiLog) replay() {
	t := g.t
	if t.cwd == "" {
		t.cwd = geminiProjectRoot(t.s.Path)
	}
	for _, m := range g.msgs {
		if m.typed {
			t.typed(m.prompt, m.at)
			continue
		}
		for _, c := range m.calls {
			switch c.name {
			case "activate_skill":
				t.own(c.id, t.use(c.skill, "", HowActivate))
			case "read_file":
				if skill, p := skillOf(c.skill, t.cwd); skill != "" {
					t.own(c.id, t.use(skill, p, HowRead))
				}
			case "run_shell_command":
				for _, p := range shellReads(c.command) {
					if skill, abs := skillOf(p, t.cwd); skill != "" {
						t.use(skill, abs, HowRead)
					}
				}
				t.command(c.id)
			}
			// A call written with its result (toolCalls) ends here; one
			// written as a functionCall part ends with its response.
			if c.status != "" {
				denied := c.status == "cancelled"
				t.result(c.id, denied || c.status == "error" || c.exit != 0, denied)
			}
		}
		for _, r := range m.results {
			if r.name == "run_shell_command" {
				t.result(r.id, r.exit != 0, false)
			}
		}
	}
}

// geminiProjectRoot is the project folder Gemini CLI 0.61.0 records beside
// its chats (tmp/<project>/.project_root); "" when there is none.
func geminiProjectRoot(session string) string {
	dir := filepath.Dir(filepath.Dir(session))
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	st, err := root.Lstat(".project_root")
	if err != nil || !st.Mode().IsRegular() || st.Size() > 4096 {
		return ""
	}
	b, err := root.ReadFile(".project_root")
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(b))
	if !filepath.IsAbs(p) || strings.ContainsAny(p, "\n\x00") {
		return ""
	}
	return p
}
