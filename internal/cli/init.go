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
	app    *app
	dir    string
	json   bool
	layout string
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
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: root, layout, commit and the files the commit wrote")
	cmd.Flags().StringVar(&opts.layout, "layout", "auto", "where the history goes, as `LAYOUT`: branch (the checked-out branch), ref (a branch of its own, \"megagit\", beside a project's) or auto (ref in a repository that has commits)")
	return cmd
}

func initRun(opts *initOptions) error {
	layout, err := registry.ParseLayout(opts.layout)
	if err != nil {
		return fmt.Errorf("--layout: %w", err)
	}
	if layout == registry.LayoutAuto {
		if layout, err = registry.ChooseLayout(opts.dir); err != nil {
			return err
		}
	}
	cfg := config.DefaultFile()
	if layout == registry.LayoutRef {
		cfg = config.DefaultFileRoots(registry.RefSkillsRoot)
	}
	reg, hash, err := registry.InitLayout(opts.dir, cfg, layout, registry.Options{})
	if err != nil {
		return err
	}
	if layout == registry.LayoutRef {
		fmt.Fprintf(opts.app.errOut, "megagit: initialised registry in %s on its own branch %s (commit %s); your checked-out branch is not touched\n", reg.Root(), registry.RegistryBranch.Short(), hash.String()[:12])
	} else {
		fmt.Fprintf(opts.app.errOut, "megagit: initialised registry in %s (commit %s)\n", reg.Root(), hash.String()[:12])
	}
	if opts.json {
		files, err := committedFiles(reg, hash)
		if err != nil {
			return err
		}
		return printJSON(opts.app.out, map[string]any{"root": reg.Root(), "layout": string(layout), "commit": hash.String(), "files": files})
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
