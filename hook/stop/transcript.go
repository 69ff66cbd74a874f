package stop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/megagit/megagit/local"
)

// Transcript is a session cut into turns, one per user prompt.
type Transcript struct {
	Turns []Turn
	// Skipped counts lines that were not readable JSON objects, or longer
	// than MaxTranscriptLine.
	Skipped int
	// Foreign counts lines of another session, ignored.
	Foreign int
}

// Turn is one user prompt and what the assistant did after it.
type Turn struct {
	Prompt   string
	Texts    []Text
	Commands []Command
	// Skills are the skills the assistant loaded itself in this turn with
	// the agent's own skill tool (Claude Code's Skill tool).
	Skills []string
}

// Text is one block of assistant text; Key names it stably across runs
// (message uuid and block index) so its tags are applied once.
type Text struct {
	Key  string
	Text string
}

// Command is one shell command the assistant ran (Claude Code's Bash tool)
// and its outcome once the tool result arrived: ExitCode counts once Done.
type Command struct {
	ID       string
	Command  string
	Done     bool
	ExitCode int
}

// claudeLine is the part of a Claude Code transcript line megagit reads.
// Each line is one JSON object: {"type": "user"|"assistant"|"summary"|...,
// "uuid", "sessionId", "isMeta", "isSidechain", "message": {"role", "content": string or
// [blocks]}}; blocks are {"type": "text", "text"}, {"type": "tool_use", "id",
// "name", "input"} and, inside "user" lines, {"type": "tool_result",
// "tool_use_id", "content", "is_error"}.
type claudeLine struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	SessionID   string `json:"sessionId"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	// ToolDenialKind and PermissionDecision mark a tool call the user's
	// permissions refused: it never ran.
	ToolDenialKind     string                    `json:"toolDenialKind"`
	PermissionDecision struct{ Decision string } `json:"permissionDecision"`
	Message            struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

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

// MaxTranscript caps how much of a transcript is read (its tail, from a
// file; see openTranscript).
const MaxTranscript = local.MaxTranscript

// MaxTranscriptLine bounds one line of a transcript: a longer one (a tool
// result holding an image or a huge file) is skipped as it is read, never
// held or decoded; what the stop hook reads (prompts, the assistant's
// text, tool calls and their exit codes) comes in far shorter lines.
const MaxTranscriptLine = 8 << 20

var exitCodeRE = lazyRE(`(?i)exit code[: ]+(\d+)`)

// ReadClaudeTranscript reads the lines of session in a Claude Code
// transcript (JSONL). Unreadable lines are counted and skipped; a torn last
// line is normal for a session still being written. A line that names
// another session (its sessionId) is ignored: evidence comes only from
// this session ("": every line is read). Only what the assistant wrote itself is kept as text: tool
// results (which arrive in "user" lines), meta lines and sidechain
// (subagent) lines never become assistant text.
func ReadClaudeTranscript(r io.Reader, session string) (Transcript, error) {
	var t Transcript
	br := bufio.NewReaderSize(io.LimitReader(r, MaxTranscript), 64<<10)
	cmds := map[string][2]int{} // tool_use id -> (turn, command)
	cur := func() *Turn {
		if len(t.Turns) == 0 {
			t.Turns = append(t.Turns, Turn{})
		}
		return &t.Turns[len(t.Turns)-1]
	}
	for n := 0; ; n++ {
		line, tooLong, err := readLine(br, MaxTranscriptLine)
		if tooLong {
			t.Skipped++
		} else if len(bytes.TrimSpace(line)) > 0 {
			var l claudeLine
			switch {
			case json.Unmarshal(line, &l) != nil:
				t.Skipped++
			case session != "" && l.SessionID != "" && l.SessionID != session:
				t.Foreign++
			case !l.IsSidechain && !l.IsMeta:
				key := l.UUID
				if key == "" {
					key = "line" + strconv.Itoa(n)
				}
				switch l.Type {
				case "user":
					t.readUser(l, cmds)
				case "assistant":
					t.readAssistant(l, key, cur, cmds)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return t, fmt.Errorf("read transcript: %w", err)
		}
	}
	return t, nil
}

// readLine reads one line of at most max bytes; a longer one is read to
// its end, a buffer at a time, and reported as tooLong without its bytes.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// readUser starts a turn for a typed prompt and records tool results.
func (t *Transcript) readUser(l claudeLine, cmds map[string][2]int) {
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		if p := strings.TrimSpace(s); p != "" && !strings.HasPrefix(p, "<command-") && !strings.HasPrefix(p, "<local-command-") {
			t.Turns = append(t.Turns, Turn{Prompt: p})
		}
		return
	}
	var blocks []claudeBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return
	}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			// A command the permissions refused never ran: it says
			// nothing of the skill, so it stays not done.
			denied := l.ToolDenialKind != "" || l.PermissionDecision.Decision == "reject"
			if at, ok := cmds[b.ToolUseID]; ok && !denied {
				c := &t.Turns[at[0]].Commands[at[1]]
				c.Done = true
				c.ExitCode = exitCode(b)
			}
		}
	}
	if p := strings.TrimSpace(strings.Join(texts, "\n")); p != "" {
		t.Turns = append(t.Turns, Turn{Prompt: p})
	}
}

func (t *Transcript) readAssistant(l claudeLine, key string, cur func() *Turn, cmds map[string][2]int) {
	var blocks []claudeBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		var s string
		if json.Unmarshal(l.Message.Content, &s) == nil && s != "" {
			cur().Texts = append(cur().Texts, Text{Key: key + "#0", Text: s})
		}
		return
	}
	for i, b := range blocks {
		switch b.Type {
		case "text":
			cur().Texts = append(cur().Texts, Text{Key: key + "#" + strconv.Itoa(i), Text: b.Text})
		case "tool_use":
			if b.Name == "Skill" {
				if name := skillToolName(b.Input); name != "" {
					cur().Skills = append(cur().Skills, name)
				}
				continue
			}
			if b.Name != "Bash" {
				continue
			}
			var in struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(b.Input, &in) != nil || in.Command == "" {
				continue
			}
			turn := cur()
			turn.Commands = append(turn.Commands, Command{ID: b.ID, Command: in.Command})
			cmds[b.ID] = [2]int{len(t.Turns) - 1, len(turn.Commands) - 1}
		}
	}
}

// fileMentions reports whether the transcript at path contains any of needles,
// reading at most its last MaxTranscript bytes a block at a time.
func fileMentions(path string, needles ...string) (bool, error) {
	r, err := openTranscript(path, nil)
	if err != nil {
		return false, err
	}
	defer r.Close()
	buf := make([]byte, 256<<10)
	keep := 0 // bytes of the previous block kept, for a needle across blocks
	for _, n := range needles {
		keep = max(keep, len(n)-1)
	}
	kept := 0
	for {
		n, err := io.ReadFull(r, buf[kept:])
		for _, needle := range needles {
			if bytes.Contains(buf[:kept+n], []byte(needle)) {
				return true, nil
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		kept = keep
		copy(buf, buf[len(buf)-keep:])
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
	return strings.TrimPrefix(strings.TrimSpace(name), "/")
}

// exitCode reads a Bash result: Claude Code marks a failed command with
// is_error and an "Exit code N" line.
func exitCode(b claudeBlock) int {
	if !b.IsError {
		return 0
	}
	var s string
	if json.Unmarshal(b.Content, &s) != nil {
		s = string(b.Content)
	}
	if m := exitCodeRE().FindStringSubmatch(s); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n != 0 {
			return n
		}
	}
	return 1
}
