package route

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/megagit/megagit/ranker"
	"golang.org/x/sys/unix"
)

// The `megagit serve` protocol: one JSON request line, one JSON response
// line, per connection, on a unix socket only the user can open. A request
// carries everything that decides the ranking besides the skills (the
// binary's version and the routing part of the client's configuration),
// so a server that would answer differently from the client declines and
// the client routes in-process.
const ServeProto = 1

// serveSocketName is the socket's name in .megagit/local/.
const serveSocketName = "serve.sock"

// Request asks a server to route one prompt.
type Request struct {
	Proto    int      `json:"proto"`
	Version  string   `json:"version"`
	Root     string   `json:"root"`
	Config   string   `json:"config"`
	Prompt   string   `json:"prompt"`
	Project  string   `json:"project,omitempty"`
	Settings Settings `json:"settings"`
}

// Response is a routed prompt: the docs it names (indices below point
// into Docs) and the ranking trimmed to its head. Declined is set instead
// when the server cannot answer for this client.
type Response struct {
	Declined   string           `json:"declined,omitempty"`
	Docs       []ranker.Doc     `json:"docs,omitempty"`
	Ranked     []WireBreakdown  `json:"ranked,omitempty"`
	Emitted    []int            `json:"emitted,omitempty"`
	Reason     string           `json:"reason"`
	Decision   ranker.KDecision `json:"decision"`
	Rendered   ranker.Rendered  `json:"rendered"`
	Candidates int              `json:"candidates"`
}

// WireBreakdown carries a breakdown's doc index, which its JSON form omits.
type WireBreakdown struct {
	Doc int              `json:"doc"`
	B   ranker.Breakdown `json:"b"`
}

// servedHead is how much of the ranking a served answer keeps besides the
// emitted skills: the decision log records at most the top 20 scores.
const servedHead = 32

// SocketPath is where a registry's server listens: in its local folder,
// or, when that path is too long for a unix socket address, in the user's
// runtime (else cache) folder under a name derived from the registry root.
func SocketPath(root, localDir string) string {
	p := filepath.Join(localDir, serveSocketName)
	if len(p) < 100 {
		return p
	}
	sum := sha256.Sum256([]byte(root))
	name := "megagit-" + hex.EncodeToString(sum[:8]) + ".sock"
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, name)
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "megagit", name)
	}
	return p
}

// ToWire packs one routed prompt for the client: the docs it refers to
// (bodies only when the format injects them) with indices renumbered.
func ToWire(docs []ranker.Doc, rr Result, bodies bool) Response {
	out := Response{Reason: rr.Res.Reason, Decision: rr.Res.Decision, Rendered: rr.Rendered, Candidates: rr.Candidates}
	local := map[int]int{}
	ref := func(d int) int {
		if i, ok := local[d]; ok {
			return i
		}
		doc := docs[d]
		if !bodies {
			doc.Body = ""
		}
		local[d] = len(out.Docs)
		out.Docs = append(out.Docs, doc)
		return local[d]
	}
	for i, b := range rr.Res.Ranked {
		if i < servedHead || slices.Contains(rr.Res.Emitted, b.Doc) {
			out.Ranked = append(out.Ranked, WireBreakdown{Doc: ref(b.Doc), B: b})
		}
	}
	for _, d := range rr.Res.Emitted {
		out.Emitted = append(out.Emitted, ref(d))
	}
	out.Rendered.Included = nil
	for _, d := range rr.Rendered.Included {
		out.Rendered.Included = append(out.Rendered.Included, ref(d))
	}
	return out
}

// fromWire unpacks a served answer into the docs and result the callers
// of Router.Route use.
func fromWire(w Response) ([]ranker.Doc, Result) {
	rr := Result{Candidates: w.Candidates, Rendered: w.Rendered, Served: true}
	rr.Res = ranker.Result{K: len(w.Emitted), Reason: w.Reason, Decision: w.Decision, Emitted: w.Emitted}
	for _, b := range w.Ranked {
		b.B.Doc = b.Doc
		rr.Res.Ranked = append(rr.Res.Ranked, b.B)
	}
	return w.Docs, rr
}

// ErrNotServed means no `megagit serve` answered for this registry, or it
// declined: the caller routes in-process.
var ErrNotServed = errors.New("not served")

// Ask asks the server listening on socket, if one runs, to route a
// prompt, within timeout. Any failure returns an error (wrapping
// ErrNotServed when no server answered or it declined): the caller then
// routes in-process, so a server can only make routing faster.
func Ask(socket string, req Request, timeout time.Duration) ([]ranker.Doc, Result, error) {
	req.Proto = ServeProto
	line, err := json.Marshal(req)
	if err != nil {
		return nil, Result{}, err
	}
	data, err := exchange(socket, append(line, '\n'), timeout)
	if err != nil {
		return nil, Result{}, err
	}
	var resp Response
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, Result{}, fmt.Errorf("serve %s: bad answer: %w", socket, err)
	}
	if resp.Declined != "" {
		return nil, Result{}, fmt.Errorf("%w: %s", ErrNotServed, resp.Declined)
	}
	if err := checkWire(resp); err != nil {
		return nil, Result{}, fmt.Errorf("serve %s: bad answer: %w", socket, err)
	}
	docs, rr := fromWire(resp)
	return docs, rr, nil
}

// exchange sends one request line on the unix socket and reads one
// answer line, within timeout. It uses the socket system calls directly,
// not package net, whose initialisation alone costs the megagit-hook
// process most of a millisecond.
func exchange(socket string, line []byte, timeout time.Duration) ([]byte, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotServed, err)
	}
	defer unix.Close(fd)
	unix.CloseOnExec(fd)
	tv := unix.NsecToTimeval(max(timeout, time.Millisecond).Nanoseconds())
	for _, opt := range []int{unix.SO_SNDTIMEO, unix.SO_RCVTIMEO} {
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotServed, err)
		}
	}
	// A unix socket connects at once or fails (no server: ENOENT or
	// ECONNREFUSED; a full backlog: EAGAIN), never half way.
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: socket}); err != nil {
		return nil, fmt.Errorf("%w: connect %s: %v", ErrNotServed, socket, err)
	}
	deadline := time.Now().Add(timeout)
	for len(line) > 0 {
		n, err := unix.Write(fd, line)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("serve %s: %w", socket, err)
		}
		line = line[n:]
	}
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("serve %s: no answer within %s", socket, timeout)
		}
		n, err := unix.Read(fd, buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return nil, fmt.Errorf("serve %s: no answer within %s", socket, timeout)
		case err != nil:
			return nil, fmt.Errorf("serve %s: %w", socket, err)
		case n == 0:
			return nil, fmt.Errorf("serve %s: %w", socket, io.ErrUnexpectedEOF)
		}
		out = append(out, buf[:n]...)
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			return out[:i+1], nil
		}
		if len(out) > maxAnswer {
			return nil, fmt.Errorf("serve %s: answer larger than %d bytes", socket, maxAnswer)
		}
	}
}

// maxAnswer bounds a served answer (the docs it names, with bodies for
// the compose format).
const maxAnswer = 64 << 20

// checkWire rejects an answer whose indices fall outside its docs.
func checkWire(w Response) error {
	ok := func(d int) bool { return d >= 0 && d < len(w.Docs) }
	for _, b := range w.Ranked {
		if !ok(b.Doc) {
			return fmt.Errorf("ranked doc %d of %d", b.Doc, len(w.Docs))
		}
	}
	for _, list := range [][]int{w.Emitted, w.Rendered.Included} {
		for _, d := range list {
			if !ok(d) {
				return fmt.Errorf("doc %d of %d", d, len(w.Docs))
			}
		}
	}
	return nil
}
