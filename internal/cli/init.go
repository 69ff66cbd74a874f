package cli

import (
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type initOptions struct {
	app  *app
	dir  string
	json bool
}

// newInitCmd parses `megagit init` into options and hands them to runF,
// or to initRun when runF is nil (tests pass a stub).
func newInitCmd(a *app, runF func(*initOptions) error) *cobra.Command {
	opts := &initOptions{app: a}
	cmd := &cobra.Command{
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
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: root, commit and the files the commit wrote")
	return cmd
}

func initRun(opts *initOptions) error {
	reg, hash, err := registry.Init(opts.dir, config.DefaultFile(), registry.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.app.errOut, "megagit: initialised registry in %s (commit %s)\n", reg.Root(), hash.String()[:12])
	if opts.json {
		files, err := committedFiles(reg, hash)
		if err != nil {
			return err
		}
		return printJSON(opts.app.out, map[string]any{"root": reg.Root(), "commit": hash.String(), "files": files})
	}
	fmt.Fprintf(opts.app.out, "%s\n", reg.Root())
	return nil
}

// committedFiles lists the files commit h changed, as git paths, sorted.
func committedFiles(reg *registry.Registry, h plumbing.Hash) ([]string, error) {
	c, err := reg.Repo().CommitObject(h)
	if err != nil {
		return nil, err
	}
	stats, err := c.Stats()
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(stats))
	for _, st := range stats {
		files = append(files, st.Name)
	}
	sort.Strings(files)
	return files, nil
}

func isAbs(p string) bool { return len(p) > 0 && p[0] == '/' }
