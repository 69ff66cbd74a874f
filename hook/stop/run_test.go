package stop

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/registry"
)

// TestRunLogsFailures checks the stop hook's failures end in one log line
// on stderr (no registry here, so no hook.log), never a panic.
func TestRunLogsFailures(t *testing.T) {
	notFound := func(string) (*registry.Registry, error) { return nil, errors.New("no registry here") }
	tests := []struct {
		name  string
		opts  Options
		stdin string
		want  string
	}{
		{"unknown agent", Options{Agent: "vim", Open: notFound}, `{"session_id":"s1"}`, `hook stop: unknown agent "vim"`},
		{"junk stdin", Options{Agent: "claude", Open: notFound}, "not json", "hook stop: malformed hook input: not a JSON object"},
		{"no session", Options{Agent: "codex", Open: notFound}, `{"cwd":"/tmp"}`, "hook stop: malformed hook input: no session_id"},
		{"no registry", Options{Agent: "gemini", Open: notFound}, `{"session_id":"s1"}`, "hook stop: no registry here"},
		{"session from the transcript's name", Options{Agent: "claude", Transcript: "/x/s9.jsonl", Open: func(string) (*registry.Registry, error) {
			return nil, errors.New("opened")
		}}, "", "hook stop: opened"},
		{"panic", Options{Agent: "claude", Open: func(string) (*registry.Registry, error) { panic("boom") }}, `{"session_id":"s1"}`, "hook stop: panic: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			tt.opts.In, tt.opts.ErrOut = strings.NewReader(tt.stdin), &errOut
			tt.opts.Now = func() time.Time { return time.Unix(0, 0) }
			Run(tt.opts)
			if got := errOut.String(); !strings.Contains(got, tt.want) || strings.Count(got, "\n") != 1 {
				t.Errorf("stderr = %q, want one line with %q", got, tt.want)
			}
		})
	}
}

// TestRunGivesUpAtTheDeadline checks a stop hook stuck before recording
// (here, opening the registry never returns) returns at its deadline with
// one log line, and that once given up nothing may be recorded.
func TestRunGivesUpAtTheDeadline(t *testing.T) {
	var errOut bytes.Buffer
	block := make(chan struct{})
	defer close(block)
	Run(Options{Agent: "claude", Deadline: 10 * time.Millisecond, In: strings.NewReader(`{"session_id":"s1"}`), ErrOut: &errOut,
		Now: func() time.Time { return time.Unix(0, 0) },
		Open: func(string) (*registry.Registry, error) {
			<-block
			return nil, errors.New("opened too late")
		}})
	if got := errOut.String(); !strings.Contains(got, "hook stop: deadline exceeded; recorded nothing") {
		t.Errorf("stderr = %q, want the deadline logged", got)
	}
	st := &runState{}
	if !st.giveUp() || st.beginRecord() {
		t.Error("after giving up, recording must be refused")
	}
	st = &runState{}
	if !st.beginRecord() || st.giveUp() {
		t.Error("once recording, the hook must wait for it")
	}
}
