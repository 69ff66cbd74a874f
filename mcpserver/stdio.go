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
// transport ends the connection there. Messages are decoded and encoded
// by the SDK's jsonrpc package.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// Log receives one line per refused line (nil: none).
	Log func(error)
}

// Connect starts reading lines.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{w: t.Out, log: t.Log, msgs: make(chan readResult), closed: make(chan struct{})}
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
	if err == nil {
		return msg, true
	}
	if !json.Valid(line) {
		c.refuse(nil, jsonrpc.CodeParseError, "parse error: not JSON")
		return nil, false
	}
	// Valid JSON, not a message: answer with its id when it has a usable one.
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	var id json.RawMessage
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
		var v any
		if json.Unmarshal(probe.ID, &v) == nil {
			if _, err := jsonrpc.MakeID(v); err == nil {
				id = probe.ID
			}
		}
	}
	c.refuse(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	return nil, false
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
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case r := <-c.msgs:
		return r.msg, r.err
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
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
