package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/megagit/megagit/mcpserver"
)

// badLines are lines that once ended `megagit mcp`: each is answered with
// a JSON-RPC error and the server goes on.
var badLines = []string{
	"garbage", "[]", "{}", `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, "x\x00y", "\x00\x00",
	`{"jsonrpc":"2.0","id":3,"method":`, "[1,2,3]", `"just a string"`,
	`{"jsonrpc":"2.0","id":9}`, `{"jsonrpc":"2.0","id":"x","params":{}}`,
}

// TestBadLinesAreAnsweredNotFatal: after initialize, every bad line gets
// its error (-32700 when not JSON, -32600 otherwise, with the line's id
// when it has a usable one), a line over MaxLine too, and tools/list after
// them all is still answered.
func TestBadLinesAreAnsweredNotFatal(t *testing.T) {
	srv, _ := newServer(t, newRegistry(t))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Run(ctx, &mcpserver.StdioTransport{In: inR, Out: outW}) }()
	out := bufio.NewScanner(outR)
	out.Buffer(make([]byte, 1<<20), 8<<20)
	next := func() map[string]any {
		t.Helper()
		got := make(chan map[string]any, 1)
		go func() {
			var m map[string]any
			if out.Scan() {
				_ = json.Unmarshal(out.Bytes(), &m)
			}
			got <- m
		}()
		select {
		case m := <-got:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
			return nil
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, l := range append(badLines, strings.Repeat("a", mcpserver.MaxLine+10)) {
		send(l)
		m := next()
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		wantCode := -32600.0
		if !json.Valid([]byte(l)) {
			wantCode = -32700
		}
		if len(l) > mcpserver.MaxLine {
			wantCode = -32600
		}
		if m["jsonrpc"] != "2.0" || code != wantCode {
			t.Errorf("line %.40q: answered %v, want error %v", l, m, wantCode)
		}
		if id, ok := m["id"]; !ok || (l == badLines[3] && id != float64(7)) || (l == badLines[10] && id != float64(9)) {
			t.Errorf("line %.40q: id %v", l, m["id"])
		}
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := next(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("tools/list after the bad lines: %v", m)
	}
}

// FuzzStdioLine: whatever a client sends, the server answers lines that
// are not messages with one JSON-RPC error each and never stops serving.
func FuzzStdioLine(f *testing.F) {
	for _, l := range badLines {
		f.Add(l)
	}
	f.Add(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		srv, _ := newServer(t, newRegistry(t))
		in := strings.NewReader(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
			line + "\n" + `{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
		pr, pw := io.Pipe()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		done := make(chan struct{})
		go func() {
			_ = srv.Run(ctx, &mcpserver.StdioTransport{In: io.MultiReader(in, blockUntil(ctx)), Out: pw})
			pw.Close()
			close(done)
		}()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("not a JSON-RPC message: %q", sc.Text())
			}
			if m["id"] == "last" {
				cancel()
				break
			}
		}
		if ctx.Err() == context.DeadlineExceeded {
			t.Fatalf("line %q: the ping after it was never answered", line)
		}
		go func() {
			for sc.Scan() {
			}
		}()
		<-done
	})
}

// blockUntil is a reader that blocks until ctx ends, then reads EOF: stdin
// kept open until the test has its answers.
func blockUntil(ctx context.Context) io.Reader {
	pr, pw := io.Pipe()
	go func() { <-ctx.Done(); pw.Close() }()
	return pr
}

// TestAVerdictSentRightBehindItsSearchIsRecorded: a client that sends
// search_skills and, without waiting for its answer, record_verdict for
// the skill the search gives (then closes stdin) gets the verdict
// recorded, every time: the SDK runs calls concurrently, and the verdict
// used to be checked before the search had offered its skill.
func TestAVerdictSentRightBehindItsSearchIsRecorded(t *testing.T) {
	srv, _ := newServer(t, newRegistry(t))
	const init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	for i := 0; i < 30; i++ {
		in := init +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"my docker image is too large"}}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"record_verdict","arguments":{"name":"docker-slim","verdict":"NEUTRAL","reason":"right behind"}}}`
		if i%2 == 1 {
			in += "\n"
		}
		var out strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_ = srv.Run(ctx, &mcpserver.StdioTransport{In: strings.NewReader(in), Out: &syncWriter{w: &out}})
		cancel()
		var verdict map[string]any
		for _, line := range strings.Split(out.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["id"] == float64(2) {
				verdict = m
			}
		}
		res, _ := verdict["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("run %d: the verdict's answer is %v, want it recorded", i, verdict)
		}
	}
}

// syncWriter is a writer safe for the transport's concurrent replies.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
