// Package server is `megagit serve`: one registry's router kept warm
// behind a unix socket and rebuilt when the skills, ledgers or
// configuration change (watched with inotify on Linux, see watch.go). The
// command that starts it passes in how to open the registry and build a
// router, so the server knows nothing of the command line or the models.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/route/serve"
)

// ErrRunning is a second server for a registry whose server runs (it
// holds serve.Lock): one registry, one server.
var ErrRunning = errors.New("a megagit serve already runs for this registry")

// Options are what the server takes from the command that starts it.
type Options struct {
	Version string        // megagit's version: a client of another version is declined
	Idle    time.Duration // stop after this long without a request (0: never)
	Log     io.Writer     // the server's messages (the command's stderr)
	// Open opens the registry and reads its configuration: at the start,
	// and again whenever the configuration file changed.
	Open func() (Registry, error)
	// Ready, if set, is called once the server listens, with its
	// socket and the number of skills it routes.
	Ready func(socket string, skills int)
	// Yield makes the server stop once it declined a client of another
	// megagit version or with other settings (the environment, or a
	// config it cannot watch, changed): the one the prompt hook started,
	// so the hook's next prompt starts one that answers it, rather than
	// routing without the model until this one's idle timeout.
	Yield bool
}

// Registry is one opening of the registry, what the server routes with.
type Registry struct {
	Root     string   // the registry's folder
	LocalDir string   // its .megagit/local: the socket and the watch's barrier
	Roots    []string // the skill roots the configuration names
	// Key fingerprints the configuration a ranking depends on; a client
	// sends its own, and one whose key differs is declined.
	Key string
	// Router reads the skills and ledgers into a router with the
	// configured model.
	Router func() (*route.Router, error)
}

// server holds one registry's warm router and rebuilds it when the skills,
// ledgers or configuration change.
type server struct {
	opts Options
	root string
	// yield ends the server (Options.Yield), which yielded then says;
	// nil until it serves.
	yield   func()
	yielded atomic.Bool

	mu      sync.Mutex
	env     *Registry
	cfgStat [2]index.Stamp
	cfgKey  string
	docsKey string
	rt      *route.Router
	watch   *serveWatch // nil: check the registry on every request
}

// Run serves the registry opts.Open opens until ctx ends, an interrupt or
// SIGTERM arrives, or no request came for opts.Idle.
func Run(ctx context.Context, opts Options) error {
	r, err := opts.Open()
	if err != nil {
		return err
	}
	s := &server{opts: opts, root: r.Root}
	if err := s.refresh(); err != nil {
		return err
	}
	s.startWatch()
	defer s.stopWatch()
	path := serve.SocketPath(r.Root, r.LocalDir)
	ln, err := listenSocket(path)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, yield := context.WithCancel(ctx)
	defer yield()
	s.yield = yield
	fmt.Fprintf(opts.Log, "megagit: serving %s on %s (%d skills); Ctrl-C stops\n", s.root, path, len(s.rt.Docs))
	if opts.Ready != nil {
		opts.Ready(path, len(s.rt.Docs))
	}
	err = s.loop(ctx, ln, opts.Idle)
	if err == nil && ctx.Err() != nil && !s.yielded.Load() {
		fmt.Fprintf(opts.Log, "megagit: interrupted; stopping\n")
	}
	return err
}

// listenSocket listens on path, replacing a socket no server answers on
// (one left by a killed server) but never a live one.
func listenSocket(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
		c.Close()
		return nil, fmt.Errorf("%w: a megagit serve already answers on %s", local.ErrLocked, path)
	}
	_ = os.Remove(path)
	old := syscall.Umask(0o077) // the socket is the user's alone
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, nil
}

// loop accepts connections until ctx ends or no request came for idle.
// A temporary accept error (out of file descriptors: EMFILE, ENFILE) is
// waited out as net/http's server does, 5 ms doubling to 1 s, and never
// ends the server; at most slots.max connections are open at once (see
// connSlots).
func (s *server) loop(ctx context.Context, ln net.Listener, idle time.Duration) error {
	clock := &idleClock{last: time.Now()}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		ln.Close()
	}()
	if idle > 0 {
		go func() {
			t := time.NewTicker(max(idle/4, time.Millisecond)) // a tick of 0 would never fire
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
				}
				if clock.quiet() >= idle {
					fmt.Fprintf(s.opts.Log, "megagit: no request for %s; stopping\n", idle)
					ln.Close()
					return
				}
			}
		}()
	}
	slots := newConnSlots(connCap())
	var delay time.Duration // the wait after a temporary accept error
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			if temporary(err) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				fmt.Fprintf(s.opts.Log, "megagit: accept: %v; retrying in %s\n", err, delay)
				select {
				case <-time.After(delay):
				case <-done:
				}
				continue
			}
			return err
		}
		delay = 0
		if !slots.take(c, ctx.Done()) {
			c.Close()
			return nil
		}
		go func() {
			defer slots.release(c)
			s.handle(c, slots, clock)
		}()
	}
}

// idleClock is what --idle measures: the time since a request was last
// read or answered, and none while one is being answered. A connection
// alone (a client that never sends its request) does not count.
type idleClock struct {
	mu   sync.Mutex
	last time.Time
	busy int // requests read and not yet answered
}

func (c *idleClock) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy++
	c.last = time.Now()
}

func (c *idleClock) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy--
	c.last = time.Now()
}

// quiet is how long no request was read or answered; 0 while one is in
// flight.
func (c *idleClock) quiet() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy > 0 {
		return 0
	}
	return time.Since(c.last)
}

// handle answers one request; a malformed one just closes the connection
// (and, like a silent one, does not reset the idle clock).
// The request must arrive within requestWait of the connection (a client
// sends it at once), so an idle connection frees its slot.
func (s *server) handle(c net.Conn, slots *connSlots, clock *idleClock) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(requestWait))
	req, err := serve.ReadRequest(c)
	slots.busy(c)
	if err != nil {
		return
	}
	clock.begin()
	defer clock.end()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	resp, other := s.answer(req)
	stops := other && s.opts.Yield && s.yield != nil
	resp.Stopping = stops
	_ = serve.WriteResponse(c, resp)
	if stops {
		fmt.Fprintf(s.opts.Log, "megagit: declined a client of another version or with other settings (%s); stopping, so the prompt hook starts a server that answers it\n", resp.Declined)
		s.yielded.Store(true)
		s.yield()
	}
}

// answer routes one request, or declines it when this server would not
// answer as the client would; other says the client is of another
// version or has other settings.
func (s *server) answer(req serve.Request) (resp serve.Response, other bool) {
	if why := req.Decline(s.opts.Version, s.root); why != "" {
		return serve.Response{Declined: why}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Rank with the warm router while the skills are checked for changes
	// (the watch's barrier, or a stat per SKILL.md when something changed
	// or nothing is watched): the answer waits for both and is re-ranked
	// only if something changed.
	now := make(chan freshness, 1)
	go func() { now <- s.check() }()
	var rr route.Result
	ranked := s.rt != nil && req.Config == s.cfgKey
	if ranked {
		rr = s.rt.RouteWithProject(req.Prompt, req.Project, req.Settings)
	}
	if changed, err := s.settle(<-now); err != nil {
		return serve.Response{Declined: err.Error()}, false
	} else if changed {
		ranked = false
	}
	if req.Config != s.cfgKey {
		return serve.Response{Declined: "client settings differ from the server's"}, true
	}
	if !ranked {
		rr = s.rt.RouteWithProject(req.Prompt, req.Project, req.Settings)
	}
	return serve.ToWire(s.rt.Docs, rr, req.Settings.Format == "compose"), false
}

// freshness is what the router was built from: the config file's index.Stamp and
// the skills' and ledgers' fingerprint (index.SkillsKey) under the current roots.
// same says instead that the watch saw nothing change; watchErr that the
// watch failed.
type freshness struct {
	cfg      [2]index.Stamp // the committed config and this machine's (.megagit/local/config.yaml)
	docs     string
	err      error
	same     bool
	watchErr error
}

func (s *server) freshness() freshness {
	st := index.StatAll([]string{configFile(s.root), config.LocalFile(configFile(s.root))})
	f := freshness{cfg: [2]index.Stamp{st[0], st[1]}}
	if s.env != nil {
		f.docs, f.err = index.SkillsKey(s.env.Root, s.env.Roots)
	}
	return f
}

// check is the freshness a request needs: "the same" when the watch saw
// nothing change, else the full check, made after the watches are renewed
// so that a change the check misses raises an event.
func (s *server) check() freshness {
	w := s.watch
	if w == nil || s.env == nil {
		return s.freshness()
	}
	if w.fresh() {
		return freshness{same: true}
	}
	_, err := w.sync(s.env.Roots)
	f := s.freshness()
	f.watchErr = err
	return f
}

// settle applies a check's outcome. A failed check, or watches renewed
// after it (the roots changed with the config), leave the server dirty.
func (s *server) settle(f freshness) (changed bool, err error) {
	if f.watchErr != nil {
		s.unwatch(f.watchErr)
	}
	var roots []string
	if s.env != nil {
		roots = s.env.Roots
	}
	changed, err = s.apply(f)
	switch {
	case s.watch == nil:
	case err != nil:
		s.watch.markDirty(false)
	case !slices.Equal(roots, s.env.Roots):
		if renewed, werr := s.watch.sync(s.env.Roots); werr != nil {
			s.unwatch(werr)
		} else if renewed {
			s.watch.markDirty(false)
		}
	}
	return changed, err
}

// refresh brings the router up to date with the registry.
func (s *server) refresh() error {
	_, err := s.apply(s.freshness())
	return err
}

// apply reloads the configuration when its file changed and rebuilds the
// router when the configuration or the skills and ledgers changed; changed
// says the router was replaced.
func (s *server) apply(f freshness) (changed bool, err error) {
	if f.err != nil {
		return false, f.err
	}
	if f.same {
		if s.rt != nil {
			return false, nil
		}
		f = s.freshness()
	}
	if s.env == nil || f.cfg != s.cfgStat {
		e, err := s.opts.Open()
		if err != nil {
			return false, err
		}
		s.env, s.cfgStat = &e, f.cfg
		if e.Key != s.cfgKey {
			s.cfgKey, s.rt = e.Key, nil
		}
		// The roots may have changed with the configuration.
		if f.docs, err = index.SkillsKey(e.Root, e.Roots); err != nil {
			return false, err
		}
	}
	if s.rt != nil && f.docs == s.docsKey {
		return false, nil
	}
	rt, err := s.env.Router()
	if err != nil {
		return false, err
	}
	s.rt, s.docsKey = rt, f.docs
	return true, nil
}

// configFile is the registry's configuration file, whose changes the
// server follows.
func configFile(root string) string {
	return filepath.Join(root, local.MetaDir, config.FileName)
}
