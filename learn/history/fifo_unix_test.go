//go:build unix

package history

import (
	"errors"
	"syscall"
	"testing"
)

// TestFIFO: a FIFO named like a session is neither listed nor opened (an
// open would block).
func TestFIFO(t *testing.T) {
	home := tempHome(t)
	writeSession(t, home, AgentClaude, "real.jsonl", goodLines...)
	p := sessionPath(home, AgentClaude, "fifo.jsonl")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	ss, err := Sessions(Options{Home: home, Env: noEnv})
	if err != nil || len(ss) != 1 {
		t.Errorf("Sessions = %+v, %v; want the real one", ss, err)
	}
	if _, err := Read(Session{Agent: AgentClaude, Path: p}); !errors.Is(err, ErrNotSession) {
		t.Errorf("Read of a FIFO: %v", err)
	}
}
