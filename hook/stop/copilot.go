package stop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// copilotLine is the part of a GitHub Copilot CLI session file megagit
// reads (~/.copilot/session-state/<session>/events.jsonl, the
// transcriptPath of its agentStop event). Each line is one event:
// {"type", "id", "data"}; a "user.message" is a prompt as typed
// (data.content; data.transformedContent is what the model got, with the
// hooks' additionalContext), an "assistant.message" the assistant's text
// (data.content, data.messageId). Hook, tool and session events are
// skipped.
type copilotLine struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Data struct {
		Content   string `json:"content"`
		MessageID string `json:"messageId"`
		// ParentToolCallID marks a subagent's message: not the main
		// assistant's own text.
		ParentToolCallID string `json:"parentToolCallId"`
	} `json:"data"`
}

// ReadCopilotTranscript reads a Copilot CLI session file into turns: one
// per user message, with the assistant's messages after it. Unreadable
// lines are counted and skipped. Copilot's tool events are not read, so a
// Copilot session gives no exit-code outcome.
func ReadCopilotTranscript(r io.Reader) (Transcript, error) {
	var t Transcript
	br := bufio.NewReaderSize(io.LimitReader(r, MaxTranscript), 64<<10)
	for n := 0; ; n++ {
		line, tooLong, err := readLine(br, MaxTranscriptLine)
		switch {
		case tooLong:
			t.Skipped++
		case len(bytes.TrimSpace(line)) == 0:
		default:
			var l copilotLine
			if json.Unmarshal(line, &l) != nil {
				t.Skipped++
				break
			}
			switch {
			case l.Type == "user.message" && strings.TrimSpace(l.Data.Content) != "":
				t.Turns = append(t.Turns, Turn{Prompt: strings.TrimSpace(l.Data.Content)})
			case l.Type == "assistant.message" && l.Data.ParentToolCallID == "" && l.Data.Content != "":
				if len(t.Turns) == 0 {
					t.Turns = append(t.Turns, Turn{})
				}
				key := l.Data.MessageID
				if key == "" {
					key = l.ID
				}
				if key == "" {
					key = fmt.Sprintf("line%d", n)
				}
				last := &t.Turns[len(t.Turns)-1]
				last.Texts = append(last.Texts, Text{Key: key, Text: l.Data.Content})
			}
		}
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return t, fmt.Errorf("read transcript: %w", err)
		}
	}
}
