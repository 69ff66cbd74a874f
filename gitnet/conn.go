package gitnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/megagit/megagit/errkind"
)

// DefaultTimeout is the connect and idle timeout until SetTimeout.
const DefaultTimeout = 60 * time.Second

// ErrTimeout is a remote that did not connect, or sent nothing, within the
// timeout.
var ErrTimeout = errkind.ErrTimeout

var (
	timeout  atomic.Int64 // the current timeout, in nanoseconds
	timeouts atomic.Int64 // how many connections have timed out, for Watch
)

// SetTimeout sets how long every later connection waits to connect, and
// then for a byte to move (either way), before it gives up; d <= 0 is the
// default. Call it before the network operations it is for.
func SetTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultTimeout
	}
	timeout.Store(int64(d))
	setHTTPIdle(d)
}

// Timeout is the current connect and idle timeout.
func Timeout() time.Duration { return time.Duration(timeout.Load()) }

// TimeoutError is a connection that timed out: it did not connect, or
// nothing moved on it, for After.
type TimeoutError struct {
	After   time.Duration
	Connect bool // while connecting
}

func (e *TimeoutError) Error() string {
	if e.Connect {
		return fmt.Sprintf("%v: no connection within %s (network.timeout_ms)", ErrTimeout, e.After)
	}
	return fmt.Sprintf("%v: no answer for %s (network.timeout_ms)", ErrTimeout, e.After)
}

// Timeout and Temporary make it a net.Error.
func (e *TimeoutError) Timeout() bool   { return true }
func (e *TimeoutError) Temporary() bool { return true }

// Is makes errors.Is find ErrTimeout and os.ErrDeadlineExceeded in it.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == os.ErrDeadlineExceeded
}

// Watch is one network operation's view of the timeouts: go-git does not
// always keep a connection's error (an ssh session that loses its
// connection reports io.EOF), so Err also counts the connections that
// timed out since Begin. megagit's network operations run one at a time.
type Watch struct{ seen int64 }

// Begin starts watching an operation.
func Begin() Watch { return Watch{seen: timeouts.Load()} }

// Err is err, or for an operation during which a connection timed out, a
// TimeoutError wrapping what go-git said; nil stays nil.
func (w Watch) Err(err error) error {
	if err == nil || errors.Is(err, ErrTimeout) {
		return err
	}
	if timeouts.Load() > w.seen {
		return fmt.Errorf("%w: %v", &TimeoutError{After: Timeout()}, err)
	}
	return err
}

// dial connects to addr within the timeout, through the dialer given (nil:
// a plain one), and wraps the connection in the idle timeout.
func dial(ctx context.Context, network, addr string, through func(ctx context.Context, network, addr string) (net.Conn, error)) (net.Conn, error) {
	d := Timeout()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if through == nil {
		through = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
	}
	c, err := through(ctx, network, addr)
	if err != nil {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
			timeouts.Add(1)
			return nil, fmt.Errorf("connect to %s: %w", addr, &TimeoutError{After: d, Connect: true})
		}
		return nil, err
	}
	return newIdleConn(c, d), nil
}

// idleConn is a connection that fails a read or a write when nothing
// moved on it, either way, for idle: a write that keeps going (a push
// sending its pack) keeps a read waiting for the answer alive, and a
// read that keeps getting bytes keeps a write alive.
type idleConn struct {
	net.Conn
	idle time.Duration
	last atomic.Int64 // unix nanoseconds of the last byte that moved
}

func newIdleConn(c net.Conn, idle time.Duration) *idleConn {
	ic := &idleConn{Conn: c, idle: idle}
	ic.moved()
	return ic
}

func (c *idleConn) moved() { c.last.Store(time.Now().UnixNano()) }

// quiet is how long nothing has moved.
func (c *idleConn) quiet() time.Duration { return time.Since(time.Unix(0, c.last.Load())) }

func (c *idleConn) Read(p []byte) (int, error) {
	for {
		_ = c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		n, err := c.Conn.Read(p)
		if n > 0 {
			c.moved()
		}
		if n > 0 || !isTimeout(err) {
			return n, err
		}
		if c.quiet() < c.idle {
			continue // the other way was busy: not idle
		}
		return 0, c.timedOut()
	}
}

func (c *idleConn) Write(p []byte) (int, error) {
	written := 0
	for {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
		n, err := c.Conn.Write(p[written:])
		written += n
		if n > 0 {
			c.moved()
		}
		if err == nil || !isTimeout(err) {
			return written, err
		}
		if n > 0 || c.quiet() < c.idle {
			continue // bytes moved: not idle
		}
		return written, c.timedOut()
	}
}

func (c *idleConn) timedOut() error {
	timeouts.Add(1)
	return &TimeoutError{After: c.idle}
}

// isTimeout reports whether err is a deadline the connection hit (not one
// a caller such as crypto/tls set for itself: only idleConn sets them on
// the raw connection).
func isTimeout(err error) bool {
	return err != nil && errors.Is(err, os.ErrDeadlineExceeded)
}
