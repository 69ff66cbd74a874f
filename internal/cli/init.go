package cli

import (
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type initOptions struct {
	app *app
	dir string
}

// newInitCmd parses `megagit init` into options and hands them to runF,
// or to initRun when runF is nil (tests pass a stub).
func newInitCmd(a *app, runF func(*initOptions) error) *cobra.Command {
	opts := &initOptions{app: a}
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a registry (git init if needed) or adopt an existing repository",
		Args:  maxArgs(1, "one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = a.workDir()
			if len(args) == 1 {
				opts.dir = args[0]
				if a.dir != "" && !isAbs(args[0]) {
					opts.dir = a.dir + "/" + args[0]
				}
			}
			return orRun(runF, initRun)(opts)
		},
	}
}

func initRun(opts *initOptions) error {
	reg, hash, err := registry.Init(opts.dir, config.DefaultFile(), registry.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.app.errOut, "megagit: initialised registry in %s (commit %s)\n", reg.Root(), hash.String()[:12])
	fmt.Fprintf(opts.app.out, "%s\n", reg.Root())
	return nil
}

func isAbs(p string) bool { return len(p) > 0 && p[0] == '/' }
