package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine bounds one JSON-RPC line from the client.
const MaxLine = 4 << 20

// StdioTransport is the SDK's newline-delimited JSON-RPC over a reader
// and a writer, with one difference that keeps megagit's tools alive for
// the rest of an agent's session: a line that is not a JSON-RPC message
// (garbage, `[]`, `{}`, another version, an object as id, NUL bytes, a line
// over MaxLine) is answered with a JSON-RPC error, -32700 (not JSON) or
// -32600 (not a request), and the server reads on; the SDK's own stdio
// transport ends the connection there. A message with an id but neither a
// method nor a result or error (not a request, not a response) is answered
// -32600 too, as is a request whose id is that of one still unanswered
// (the SDK would drop one of the two replies). When stdin ends, every request already read is finished and
// answered before the end reaches the SDK, which would otherwise cancel
// them and drop their replies (a verdict committed without its reply, or
// not at all). A record_verdict is handed on once the requests read
// before it are answered, so a verdict sent right behind the search that
// offers its skill finds it offered. Messages are decoded and encoded by
// the SDK's jsonrpc package.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// Log receives one line per refused line (nil: none).
	Log func(error)
}

// drainWait bounds how long the end of stdin waits for the requests read
// before it to be answered: a tool call takes well under a second, a
// verdict at most the registry lock's wait.
const drainWait = time.Minute

// verdictWait bounds how long a record_verdict waits for the requests
// read before it to be answered (the search that offered its skill among
// them) before it is handed on.
const verdictWait = 30 * time.Second

// Connect starts reading lines.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.Out, log: t.Log, msgs: make(chan readResult), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop(bufio.NewReaderSize(t.In, 64<<10))
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	w      io.Writer
	wmu    sync.Mutex
	log    func(error)
	msgs   chan readResult
	closed chan struct{}
	once   sync.Once

	// pending are the ids of the requests read and not answered yet;
	// answered is signalled when one is.
	pmu      sync.Mutex
	pending  map[jsonrpc.ID]bool
	answered chan struct{}
}

func (c *lineConn) readLoop(r *bufio.Reader) {
	for {
		line, tooLong, err := readLine(r, MaxLine)
		if tooLong {
			c.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a request line longer than %d bytes", MaxLine))
		} else if msg, ok := c.decode(line); ok {
			select {
			case c.msgs <- readResult{msg: msg}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.msgs <- readResult{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// decode is one line's message; a line that is none is answered here.
func (c *lineConn) decode(line []byte) (jsonrpc.Message, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, false
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil && r.Result == nil && r.Error == nil {
		// The SDK reads this as a reply to a call it never made, and drops it.
		err = errors.New("a message with an id needs a method (a request), or a result or an error (a response)")
	}
	if err == nil {
		return msg, true
	}
	if !json.Valid(line) {
		c.refuse(nil, jsonrpc.CodeParseError, "parse error: not JSON")
		return nil, false
	}
	c.refuse(lineID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	return nil, false
}

// lineID is the id of a JSON line that is not a message, when it has one
// an answer can carry; nil otherwise.
func lineID(line []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) != nil || len(probe.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(probe.ID, &v) != nil {
		return nil
	}
	if _, err := jsonrpc.MakeID(v); err != nil {
		return nil
	}
	return probe.ID
}

// refuse answers a line that is not a message with a JSON-RPC error whose
// id is the line's own, or null when it has none it could be.
func (c *lineConn) refuse(id json.RawMessage, code int64, msg string) {
	if c.log != nil {
		c.log(fmt.Errorf("refused a client line (%d): %s", code, msg))
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	// The SDK's encoder leaves out an id it cannot hold (null); JSON-RPC
	// wants the member, so the reply is the same object with id given.
	out, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err == nil {
		c.writeLine(out)
	}
}

// readLine reads one line of at most max bytes; a longer one is read to
// its end and reported as tooLong, without its bytes.
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

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case r := <-c.msgs:
			if r.err != nil {
				c.drain(ctx)
				return nil, r.err
			}
			if req, ok := r.msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
				c.pmu.Lock()
				dup := c.pending[req.ID]
				c.pending[req.ID] = true
				c.pmu.Unlock()
				if dup {
					// The SDK would answer only one of the two: the
					// second is refused, and the first runs on.
					c.refuse(idJSON(req.ID), jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: id %v is already in use by a request not answered yet", req.ID.Raw()))
					continue
				}
				if isVerdictCall(req) {
					// The SDK runs calls concurrently: a verdict sent
					// right behind the search that gives its skill would
					// be checked before that search had offered it.
					c.waitAnswered(ctx, 1, verdictWait)
				}
			}
			return r.msg, nil
		}
	}
}

// idJSON is id as JSON, nil when it cannot be encoded.
func idJSON(id jsonrpc.ID) json.RawMessage {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return b
}

// isVerdictCall reports whether req calls record_verdict.
func isVerdictCall(req *jsonrpc.Request) bool {
	if req.Method != "tools/call" {
		return false
	}
	var p struct {
		Name string `json:"name"`
	}
	return json.Unmarshal(req.Params, &p) == nil && p.Name == ToolVerdict
}

// drain waits, at the end of stdin, until every request read has been
// answered (or drainWait has passed, which is logged): only then may the
// SDK learn that the input ended.
func (c *lineConn) drain(ctx context.Context) {
	if n := c.waitAnswered(ctx, 0, drainWait); n > 0 && c.log != nil {
		c.log(fmt.Errorf("stdin closed: %d request(s) still unanswered after %s; exiting", n, drainWait))
	}
}

// waitAnswered waits until at most left requests read are unanswered, or
// for max; it returns how many are.
func (c *lineConn) waitAnswered(ctx context.Context, left int, max time.Duration) int {
	timeout := time.NewTimer(max)
	defer timeout.Stop()
	for {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n <= left {
			return n
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return n
		case <-c.closed:
			return n
		case <-timeout.C:
			return n
		}
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.pmu.Lock()
		delete(c.pending, r.ID)
		c.pmu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
