package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/server"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

// The server is route/server and the protocol route (the megagit-hook
// binary is a client too); what depends on the config is here.

type serveOptions struct {
	app  *app
	idle time.Duration
}

// newServeCmd parses `megagit serve` into options and hands them to runF,
// or to serveRun when runF is nil (tests pass a stub).
func newServeCmd(a *app, runF func(*serveOptions) error) *cobra.Command {
	opts := &serveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Keep this registry's index and model warm on a unix socket for route and the prompt hook",
		Long: "serve loads the skills, the index and the semantic model once and answers route and\n" +
			"hook prompt requests on a unix socket in .megagit/local/ until interrupted. Skills,\n" +
			"ledgers and config are watched for changes (on Linux; elsewhere re-checked on every\n" +
			"request), so answers are always those the command itself would give; a client whose\n" +
			"settings differ routes in-process.",
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.idle < 0 {
				return usageError{fmt.Errorf("--idle %s: want a positive duration, or 0 to never stop", opts.idle)}
			}
			if runF != nil {
				return runF(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.idle, "idle", 0, "exit after this long without a request (0: never)")
	return cmd
}

// serveRun serves the registry until ctx ends or the server stops.
func serveRun(ctx context.Context, opts *serveOptions) error {
	a := opts.app
	return server.Run(ctx, server.Options{Version: version, Idle: opts.idle, Log: a.errOut, Open: func() (server.Registry, error) {
		e, err := a.open(nil)
		if err != nil {
			return server.Registry{}, err
		}
		return server.Registry{
			Root: e.Reg.Root(), LocalDir: e.Reg.LocalDir(), Roots: e.StampRoots(), Key: e.ServeKey(),
			Router: func() (*route.Router, error) { return a.router(e, true) },
		}, nil
	}})
}

// serveClient is e's client of its registry's `megagit serve`.
func serveClient(e *workspace.Workspace) route.Client {
	return route.Client{Version: version, Root: e.Reg.Root(), LocalDir: e.Reg.LocalDir(), Config: e.ServeKey()}
}
