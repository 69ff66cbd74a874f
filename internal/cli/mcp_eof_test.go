package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/registry/registrytest"
)

// mcpLine is a JSON-RPC reply as `megagit mcp` writes it.
type mcpLine struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// An agent that pipes its last requests and closes stdin gets every one of
// them answered before `megagit mcp` exits, and a verdict among them is
// committed, every time (20 runs); a request with an id and no method gets
// -32600 Invalid Request.
func TestMCPAnswersEveryRequestBeforeEOF(t *testing.T) {
	r := registrytest.New(t)
	if _, _, err := r.AddSkill("flaky-tests", "Find why tests pass locally but fail randomly in CI. Use when a test is flaky.", "# Flaky\n\nShuffle.\n"); err != nil {
		t.Fatal(err)
	}
	exe, err := exec.LookPath("megagit") // the test binary, as TestMain put it on PATH
	if err != nil {
		t.Fatal(err)
	}
	const runs = 20
	for run := range runs {
		cmd := exec.Command(exe, "-C", r.Root(), "mcp")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		outPipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		out := bufio.NewScanner(outPipe)
		out.Buffer(make([]byte, 1<<20), 8<<20)
		send := func(lines ...string) {
			for _, l := range lines {
				if _, err := io.WriteString(in, l+"\n"); err != nil {
					t.Fatal(err)
				}
			}
		}
		read := func() (mcpLine, bool) {
			var m mcpLine
			if !out.Scan() {
				return m, false
			}
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				t.Fatalf("run %d: stdout line %q: %v", run, out.Text(), err)
			}
			return m, true
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"the tests fail randomly in CI"}}}`)
		for seen := 0; seen < 2; seen++ { // the search offers the skill a verdict may name
			if _, ok := read(); !ok {
				t.Fatalf("run %d: no reply to initialize and search: %s", run, stderr.String())
			}
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"record_verdict","arguments":{"name":"flaky-tests","verdict":"HELPFUL","reason":"run %d"}}}`, run),
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":5}`,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"flaky-tests"}}}`)
		in.Close()
		got := map[string]mcpLine{}
		for {
			m, ok := read()
			if !ok {
				break
			}
			got[string(m.ID)] = m
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("run %d: megagit mcp: %v\n%s", run, err, stderr.String())
		}
		for _, id := range []string{"3", "4", "6"} {
			if m, ok := got[id]; !ok || m.Result == nil || m.Result.IsError {
				t.Errorf("run %d: request %s: reply %+v (present %v), want a result\nstderr: %s", run, id, m, ok, stderr.String())
			}
		}
		if m, ok := got["5"]; !ok || m.Error == nil || m.Error.Code != -32600 {
			t.Errorf("run %d: a request with an id and no method: reply %+v (present %v), want error -32600", run, m, ok)
		}
	}
	logs, err := r.Log("flaky-tests", 2*runs)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := 0
	for _, l := range logs {
		if l.Verdict == "HELPFUL" {
			verdicts++
		}
	}
	if verdicts != runs {
		t.Errorf("the history holds %d verdict commits, want one per run: %d", verdicts, runs)
	}
}

// A client that reuses the id of a request still in flight gets an answer
// to both: the second is refused with -32600 (or, had the first been
// answered already, run too), and no verdict is committed unanswered.
func TestMCPDuplicateIDsInFlightAreAnswered(t *testing.T) {
	r := registrytest.New(t)
	if _, _, err := r.AddSkill("flaky-tests", "Find why tests pass locally but fail randomly in CI. Use when a test is flaky.", "# Flaky\n\nShuffle.\n"); err != nil {
		t.Fatal(err)
	}
	exe, err := exec.LookPath("megagit")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-C", r.Root(), "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	replies := make(chan mcpLine)
	go func() {
		defer close(replies)
		out := bufio.NewScanner(outPipe)
		out.Buffer(make([]byte, 1<<20), 8<<20)
		for out.Scan() {
			var m mcpLine
			if json.Unmarshal(out.Bytes(), &m) == nil {
				replies <- m
			}
		}
	}()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"the tests fail randomly in CI"}}}`,
	} {
		if _, err := io.WriteString(in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	for seen := 0; seen < 2; seen++ {
		if _, ok := <-replies; !ok {
			t.Fatalf("no reply to initialize and search: %s", stderr.String())
		}
	}
	verdict := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"record_verdict","arguments":{"name":"flaky-tests","verdict":"%s","reason":"dup %d"}}}` + "\n"
	if _, err := io.WriteString(in, fmt.Sprintf(verdict, "HELPFUL", 1)+fmt.Sprintf(verdict, "HARMFUL", 2)); err != nil {
		t.Fatal(err)
	}
	// stdin stays open: each request must be answered while the agent waits.
	var results, refused int
	timeout := time.After(30 * time.Second) // a missing reply, not a slow one
	for results+refused < 2 {
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatalf("megagit mcp exited: %s", stderr.String())
			}
			switch {
			case string(m.ID) != "7":
				t.Fatalf("unexpected reply %+v", m)
			case m.Error != nil && m.Error.Code == -32600:
				refused++
			case m.Result != nil && !m.Result.IsError:
				results++
			default:
				t.Fatalf("reply to id 7: %+v", m)
			}
		case <-timeout:
			t.Fatalf("two requests of id 7: %d answered, %d refused after 30 s\nstderr: %s", results, refused, stderr.String())
		}
	}
	logs, err := r.Log("flaky-tests", 10)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := 0
	for _, l := range logs {
		if l.Verdict != "" {
			verdicts++
		}
	}
	if results == 0 || verdicts != results {
		t.Errorf("%d results, %d refused, %d verdict commits: want one commit per result", results, refused, verdicts)
	}
}
