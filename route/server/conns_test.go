package server

import (
	"context"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/megagit/megagit/route/routetest"
	"github.com/megagit/megagit/route/serve"
)

// flakyListener fails its first fails accepts as a process out of file
// descriptors does, then accepts for real.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// Out of file descriptors, the server waits and accepts again: it serves
// the client that was waiting, and its log says what happened.
func TestServeWaitsOutTooManyOpenFiles(t *testing.T) {
	dir := serveTestRegistry(t, 5)
	s, log := newTestServer(t, dir)
	r := reopen(t, dir)
	ln, err := listenSocket(serve.SocketPath(r.Root, r.LocalDir))
	noErr(t, err)
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(5)
	routetest.Start(t, func(ctx context.Context) error { return s.loop(ctx, fl, 0) })
	routetest.WaitServed(t, clientOf(r), log)
	if n := strings.Count(log.String(), "too many open files; retrying in"); n != 5 {
		t.Errorf("the log tells %d failed accepts, want 5:\n%s", n, log)
	}
	agree(t, r, "postgres migration")
}

// A connection that never sends its request gives its slot up to the next
// one when all are taken; a connection whose request was read keeps it.
func TestConnSlotsEvictTheOldestSilent(t *testing.T) {
	s := newConnSlots(2)
	a, b, c := pipeConn(t), pipeConn(t), pipeConn(t)
	if !s.take(a, nil) || !s.take(b, nil) {
		t.Fatal("free slots refused")
	}
	s.busy(a) // a's request was read: b is the oldest silent one
	stop := make(chan struct{})
	got := make(chan bool)
	go func() { got <- s.take(c, stop) }()
	if _, err := b.Read(make([]byte, 1)); err == nil {
		t.Fatal("b was not closed")
	}
	s.release(b) // as b's handler does when its read fails
	if !<-got {
		t.Fatal("c got no slot")
	}
	if _, err := a.Write([]byte("x")); err != nil {
		t.Errorf("a was closed: %v", err)
	}
	s.busy(c)
	d := pipeConn(t)
	go func() { got <- s.take(d, stop) }()
	close(stop) // none silent: d waits, until the server stops
	if <-got {
		t.Error("d took a slot while two requests were being answered")
	}
}

// pipeConn is one end of an in-memory connection whose other end drains
// what is written.
func pipeConn(t *testing.T) net.Conn {
	a, b := net.Pipe()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := b.Read(buf); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a
}
