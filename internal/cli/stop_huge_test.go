package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/local"
)

// writeHugeTranscript writes a Claude Code transcript larger than the part
// the stop hook reads (local.MaxTranscript): one line longer than that
// part, in which the part begins, then a turn that loads skill with the
// Skill tool and reports it HELPFUL.
func writeHugeTranscript(t testing.TB, path, session, skill string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"type":"user","sessionId":%q,"uuid":"u0","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"`, session)
	chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
	for n := 0; n < local.MaxTranscript+(2<<20); n += len(chunk) {
		w.Write(chunk)
	}
	w.WriteString("\"}]}}\n")
	fmt.Fprintf(w, `{"type":"user","sessionId":%q,"uuid":"u1","message":{"role":"user","content":"our stripe webhooks get rejected since the deploy"}}`+"\n", session)
	fmt.Fprintf(w, `{"type":"assistant","sessionId":%q,"uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Skill","input":{"skill":%q}}]}}`+"\n", session, skill)
	fmt.Fprintf(w, `{"type":"assistant","sessionId":%q,"uuid":"a2","message":{"role":"assistant","content":[{"type":"text","text":"Fixed.\n<skill-used name=\"%s\" verdict=\"HELPFUL\" reason=\"hex vs raw bytes\"/>"}]}}`+"\n", session, skill)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// The stop hook on a transcript over 64 MiB whose tail starts inside one
// huge line (a tool result) still records the tag of the last turn.
func TestStopReadsAHugeTranscript(t *testing.T) {
	env := procEnv(t)
	dir := t.TempDir()
	mustMegagit(t, env, "-C", dir, "init")
	mustMegagit(t, env, "-C", dir, "skill", "add", "webhook-signer", "--description", "Validate HMAC signatures of incoming webhooks.")
	transcript := filepath.Join(t.TempDir(), "s-big.jsonl")
	writeHugeTranscript(t, transcript, "s-big", "webhook-signer")
	cmd := exec.Command("megagit", "-C", dir, "hook", "stop", "--agent", "claude")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s-big","transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`, transcript, dir))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || len(out) > 0 {
		t.Fatalf("hook stop: %v, stdout %q, stderr %q", err, out, stderr.String())
	}
	if strings.Contains(stderr.String(), "deadline exceeded") {
		t.Errorf("hook stop: %s", stderr.String())
	}
	ledger, err := os.ReadFile(filepath.Join(dir, ".megagit", "ledger", "webhook-signer.jsonl"))
	if err != nil || !strings.Contains(string(ledger), `"verdict":"HELPFUL","source":"explicit"`) || !strings.Contains(string(ledger), "hex vs raw bytes") {
		log, _ := os.ReadFile(filepath.Join(dir, ".megagit", "local", hookLogName))
		t.Fatalf("no HELPFUL verdict recorded (%v):\n%s\nhook.log:\n%s", err, ledger, log)
	}
}
