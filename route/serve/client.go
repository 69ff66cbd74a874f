// Package serve is the `megagit serve` protocol: the client the prompt
// hook and `megagit route` ask, the wire format, and the files of the one
// server per registry (its lock, state and log). The server is
// route/server.
package serve

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
	"time"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"golang.org/x/sys/unix"
)

// The client side of the `megagit serve` protocol (its wire format is in
// wire.go); route and the prompt hook, in either binary, are clients.

// serveSocketName is the socket's name in .megagit/local/.
const serveSocketName = "serve.sock"

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

// ErrNotServed means no `megagit serve` answered for this registry, or it
// declined: the caller routes in-process.
var ErrNotServed = errors.New("not served")

// ErrServerStops means the server declined and stops after this answer
// (it serves another megagit or other settings, see server.Options.Yield):
// it wraps ErrNotServed, and the caller starts no server until it has
// stopped, which the next prompt sees.
var ErrServerStops = errors.New("megagit serve stops")

// declined is a server's refusal to answer: why, and whether it stops.
type declined struct {
	why   string
	stops bool
}

func (d declined) Error() string { return ErrNotServed.Error() + ": " + d.why }

func (d declined) Is(target error) bool {
	return target == ErrNotServed || (d.stops && target == ErrServerStops)
}

// Client asks one registry's `megagit serve` to route prompts. Besides
// the prompt it sends what decides the ranking on its side, so a server
// that would answer otherwise declines.
type Client struct {
	Version  string // the client's megagit version
	Root     string // the registry's folder
	LocalDir string // the registry's .megagit/local, where the socket is
	Config   string // fingerprint of the client's routing configuration
}

// Route asks the registry's server, if one runs, to route a prompt (with
// the project's words, see Router.RouteWithProject), within timeout. Any
// failure returns an error (wrapping ErrNotServed when no server answered
// or it declined): the caller then routes in-process, so a server can only
// make routing faster.
func (c Client) Route(prompt, project string, s route.Settings, timeout time.Duration) ([]ranker.Doc, route.Result, error) {
	socket := SocketPath(c.Root, c.LocalDir)
	req := Request{Proto: Proto, Version: c.Version, Root: c.Root, Config: c.Config, Prompt: prompt, Project: project, Settings: s}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, route.Result{}, err
	}
	data, err := exchange(socket, append(line, '\n'), timeout)
	if err != nil {
		return nil, route.Result{}, err
	}
	var resp Response
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, route.Result{}, fmt.Errorf("serve %s: bad answer: %w", socket, err)
	}
	if resp.Declined != "" {
		return nil, route.Result{}, declined{why: resp.Declined, stops: resp.Stopping}
	}
	if err := checkWire(resp); err != nil {
		return nil, route.Result{}, fmt.Errorf("serve %s: bad answer: %w", socket, err)
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
