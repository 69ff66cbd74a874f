package hook

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
)

// A logged error quoting a transcript's text never writes a control
// character to hook.log or stderr: it is one line, escaped.
func TestLogEscapesControlCharacters(t *testing.T) {
	dir := local.Open(t.TempDir(), time.Second)
	var errOut bytes.Buffer
	Log(&errOut, &dir, time.Unix(0, 0), AgentClaude, "stop", errors.New("ignored tag in session \x1b]0;pwned\a\nnext"))
	data, err := dir.Read(LogFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{string(data), errOut.String()} {
		if !strings.Contains(out, `session \x1b]0;pwned\x07 next`) || strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("log line %q", out)
		}
	}
}

// learn labels a decision unhelpful when the stop hook read its session:
// SessionStopped reads that from the session memory, and a session with no
// memory or a junk one was not read.
func TestSessionStopped(t *testing.T) {
	dir := local.Open(t.TempDir(), time.Second)
	sess := ParseSession("stopped", nil)
	sess.Stopped = true
	data, err := sess.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := dir.Write(SessionFile("stopped"), data); err != nil {
		t.Fatal(err)
	}
	if err := dir.Write(SessionFile("junk"), []byte("{")); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"stopped": true, "junk": false, "never": false} {
		if got := SessionStopped(dir, id); got != want {
			t.Errorf("SessionStopped(%q) = %v, want %v", id, got, want)
		}
	}
}
