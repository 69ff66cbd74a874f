package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/route/serve"
	"github.com/megagit/megagit/route/server"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

// The server is route/server and the protocol route (the megagit-hook
// binary is a client too); what depends on the config is here, and the
// one-server-per-registry lock (serve.Lock) and state file
// (serve.StateFile) the prompt hook reads to start a server itself.

type serveOptions struct {
	app  *app
	idle time.Duration
	stop bool
	// lockFD is the serve lock the prompt hook took and handed down
	// (hidden --lock-fd; 0: none): the server was started by the hook.
	lockFD int
}

// newServeCmd parses `megagit serve` into options and hands them to runF,
// or to serveRun when runF is nil (tests pass a stub).
func newServeCmd(a *app, runF func(*serveOptions) error) *cobra.Command {
	opts := &serveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Keep the index and model warm on a unix socket for route and hooks",
		Long: "serve loads the skills, the index and the semantic model once and answers route and\n" +
			"hook prompt requests on a unix socket in .megagit/local/ until interrupted. Skills,\n" +
			"ledgers and config are watched for changes (on Linux; elsewhere re-checked on every\n" +
			"request), so answers are always those the command itself would give; a client whose\n" +
			"settings differ routes in-process.\n\n" +
			"One server runs per registry: a second one is refused. With an ONNX model the prompt\n" +
			"hook starts it by itself (hook.serve: auto), stopping after serve.idle_ms without a\n" +
			"request and writing to .megagit/local/serve.log; --stop stops the running one.",
		Example: examples(
			"megagit serve", "serve in the foreground until interrupted",
			"megagit serve --idle 8h &", "a server of your own, stopping after 8 idle hours",
			"megagit serve --stop", "stop this registry's server, whoever started it",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.idle < 0 {
				return usageError{fmt.Errorf("--idle %s: want a positive duration, or 0 to never stop", opts.idle)}
			}
			if opts.stop && (opts.lockFD != 0 || cmd.Flags().Changed("idle")) {
				return usageError{fmt.Errorf("--stop takes no other flag")}
			}
			if opts.lockFD < 0 || opts.lockFD > 0 && opts.lockFD < 3 {
				return usageError{fmt.Errorf("--lock-fd %d: want a descriptor from 3 up", opts.lockFD)}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.stop {
				return serveStop(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.idle, "idle", 0, "exit after this long without a request (0: never)")
	cmd.Flags().BoolVar(&opts.stop, "stop", false, "stop the registry's running server (started by hand or by the prompt hook) and exit")
	cmd.Flags().IntVar(&opts.lockFD, "lock-fd", 0, "the serve lock, already held on this descriptor (the prompt hook starts the server so)")
	_ = cmd.Flags().MarkHidden("lock-fd")
	return cmd
}

// serveRun serves the registry until ctx ends or the server stops. It
// holds the registry's serve lock meanwhile (taken here, or handed down by
// the prompt hook that started it) and keeps the state file current. A
// server the hook started writes to serve.log, and refuses to serve
// without the model it was started for: the hook routes without it
// better by itself.
func serveRun(ctx context.Context, opts *serveOptions) error {
	a := opts.app
	root, err := registryRoot(a)
	if err != nil {
		return notRegistry(a, err)
	}
	d := local.Open(root, 0)
	auto := opts.lockFD > 0
	var lock *local.Lock
	prev, _ := serve.ReadState(d)
	if auto {
		if lock, err = d.AdoptLock(uintptr(opts.lockFD), serve.Lock); err != nil {
			return err
		}
		a.errOut = stampedLog{w: local.AsLog(os.Stderr, serve.LogMaxBytes), now: a.now}
	} else if lock, err = d.TryAcquireFile(serve.Lock); err != nil {
		return err
	} else if lock == nil {
		return serveRunsError(d)
	}
	defer lock.Release()
	st := serve.State{State: serve.Starting, PID: os.Getpid(), Time: a.now().UTC().Format(time.RFC3339), Auto: auto, Idle: opts.idle.String()}
	if auto {
		st.Stamp = prev.Stamp // the hook's, of when it started this server
		writeServeState(a, d, st)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if auto {
		// A stop while the model loads lets the server finish loading and
		// stop cleanly (stopped, not a start that failed).
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var lost error // the model stopped loading after the server started
	started := false
	model := "no model: lexical"
	err = server.Run(ctx, server.Options{Version: version, Idle: opts.idle, Log: a.errOut, Yield: auto, Open: func() (server.Registry, error) {
		e, err := a.open(nil)
		if err != nil {
			return server.Registry{}, err
		}
		return server.Registry{
			Root: e.Reg.Root(), LocalDir: e.Reg.LocalDir(), Roots: e.StampRoots(), Key: e.ServeKey(),
			Router: func() (*route.Router, error) {
				rt, err := serveRouter(a, e, auto)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil && started && auto:
					lost = err
					cancel()
				case err == nil:
					model = "no model: lexical"
					if sem := workspace.SemanticOf(rt); sem != nil {
						model = sem.Model
					}
				}
				return rt, err
			},
		}, nil
	}, Ready: func(string, int) {
		mu.Lock()
		started = true
		st.State, st.Model, st.Time = serve.Serving, model, a.now().UTC().Format(time.RFC3339)
		mu.Unlock()
		writeServeState(a, d, st)
	}})
	mu.Lock()
	if err == nil {
		err = lost
	}
	mu.Unlock()
	switch {
	case err != nil && auto:
		st.State, st.Error, st.Time = serve.Failed, err.Error(), a.now().UTC().Format(time.RFC3339)
		writeServeState(a, d, st)
	case started:
		st.State, st.Time = serve.Stopped, a.now().UTC().Format(time.RFC3339)
		writeServeState(a, d, st)
	}
	return err
}

// serveRouter is the server's router. One the prompt hook started must
// route with the registry's ONNX model: without it (the model or ONNX
// Runtime does not load, no vectors yet) it is an error saying why, and
// the hook routes by itself.
func serveRouter(a *app, e *workspace.Workspace, auto bool) (*route.Router, error) {
	var why []string
	say := a.say
	if auto {
		say = func(line string) {
			a.say(line)
			if w, ok := strings.CutPrefix(line, "megagit: warning: "); ok {
				why = append(why, strings.TrimSuffix(w, "; routing lexically"))
			}
		}
	}
	rt, err := e.Router(a.warnProblems, say, true)
	if err != nil || !auto || !dense.UsesONNX(e.Cfg, e.Reg.Root()) || workspace.SemanticOf(rt) != nil {
		return rt, err
	}
	if len(why) == 0 {
		why = []string{"routing would be lexical"}
	}
	return nil, fmt.Errorf("cannot route with %s: %s", dense.ONNXModelID(e.Cfg, e.Reg.Root()), strings.Join(why, "; "))
}

// writeServeState writes the server's state, saying on the log when it cannot.
func writeServeState(a *app, d local.Dir, st serve.State) {
	if err := serve.WriteState(d, st); err != nil {
		fmt.Fprintf(a.errOut, "megagit: warning: %v\n", err)
	}
}

// serveRunsError is the error of a second server for a registry.
func serveRunsError(d local.Dir) error {
	info := d.FileLockState(serve.Lock)
	by := ""
	if st, ok := serve.ReadState(d); ok && st.PID == info.PID && st.Auto {
		by = ", started by the prompt hook"
	}
	return withHint(fmt.Errorf("%w (pid %d%s)", server.ErrRunning, info.PID, by),
		"`megagit serve --stop` stops it")
}

// serveStopWait bounds how long --stop waits for the server to exit.
const serveStopWait = 10 * time.Second

// serveStop stops the registry's server: SIGTERM to the holder of the
// serve lock, then a wait for the lock to be free.
func serveStop(opts *serveOptions) error {
	a := opts.app
	root, err := registryRoot(a)
	if err != nil {
		return notRegistry(a, err)
	}
	d := local.Open(root, 0)
	info := d.FileLockState(serve.Lock)
	if !info.Held {
		a.say(fmt.Sprintf("megagit: no megagit serve runs for %s", root))
		return nil
	}
	if info.PID <= 0 || info.PID == os.Getpid() {
		return fmt.Errorf("%s names no process (%d): cannot stop the server", serve.Lock, info.PID)
	}
	if err := syscall.Kill(info.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stopping megagit serve (pid %d): %w", info.PID, err)
	}
	for end := time.Now().Add(serveStopWait); ; time.Sleep(20 * time.Millisecond) {
		now := d.FileLockState(serve.Lock)
		if !now.Held {
			fmt.Fprintf(a.errOut, "megagit: stopped megagit serve (pid %d)\n", info.PID)
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("megagit serve (pid %d) did not stop within %s", now.PID, serveStopWait)
		}
		if now.PID != info.PID && now.PID > 0 {
			// The hook that started the server named it only now.
			info = now
			_ = syscall.Kill(info.PID, syscall.SIGTERM)
		}
	}
}

// stampedLog prefixes each line written with the time, for serve.log.
type stampedLog struct {
	w   io.Writer
	now func() time.Time
}

func (l stampedLog) Write(p []byte) (int, error) {
	stamp := l.now().UTC().Format(time.RFC3339) + " "
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line != "" {
			b.WriteString(stamp + line)
		}
	}
	if _, err := io.WriteString(l.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// serveClient is e's client of its registry's `megagit serve`.
func serveClient(e *workspace.Workspace) serve.Client {
	return serve.Client{Version: version, Root: e.Reg.Root(), LocalDir: e.Reg.LocalDir(), Config: e.ServeKey()}
}
