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
