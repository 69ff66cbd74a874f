package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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
	auto := opts.lockFD > 0
	err = server.Serve(ctx, local.Open(root, 0), server.Managed{
		Version: version, Idle: opts.idle, LockFD: uintptr(opts.lockFD), Now: a.now,
		Log: func() io.Writer { return a.errOut },
		Locked: func() {
			if auto {
				a.errOut = stampedLog{w: local.AsLog(os.Stderr, serve.LogMaxBytes), now: a.now}
			}
		},
		Open: func() (server.Registry, error) {
			e, err := a.open(nil)
			if err != nil {
				return server.Registry{}, err
			}
			return server.Registry{
				Root: e.Reg.Root(), LocalDir: e.Reg.LocalDir(), Roots: e.StampRoots(), Key: e.ServeKey(),
				Router: func() (*route.Router, error) { return serveRouter(a, e, auto) },
			}, nil
		},
		Model: func(rt *route.Router) string {
			if sem := workspace.SemanticOf(rt); sem != nil {
				return sem.Model
			}
			return "no model: lexical"
		},
	})
	if errors.Is(err, server.ErrRunning) {
		return withHint(err, "`megagit serve --stop` stops it")
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

// serveStop stops the registry's server (server.Stop).
func serveStop(opts *serveOptions) error {
	a := opts.app
	root, err := registryRoot(a)
	if err != nil {
		return notRegistry(a, err)
	}
	pid, err := server.Stop(local.Open(root, 0))
	switch {
	case err != nil:
		return err
	case pid == 0:
		a.say(fmt.Sprintf("megagit: no megagit serve runs for %s", root))
	default:
		fmt.Fprintf(a.errOut, "megagit: stopped megagit serve (pid %d)\n", pid)
	}
	return nil
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
