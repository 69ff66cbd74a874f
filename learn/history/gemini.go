package history

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
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
