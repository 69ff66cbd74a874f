package cli

import (
	"fmt"
	"path/filepath"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type initOptions struct {
	app    *app
	dir    string
	json   bool
	layout string
	// named is true when DIR was given; here keeps a registry in a
	// sub-folder of a project's work tree.
	named, here bool
}

// newInitCmd parses `megagit init` into options and hands them to runF,
// or to initRun when runF is nil (tests pass a stub).
func newInitCmd(a *app, runF func(*initOptions) error) *cobra.Command {
	opts := &initOptions{app: a}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a registry, in a new or an existing git repository",
		Long: `init creates a registry in DIR (the current folder by default), running git
init first when DIR is in no git repository. In a project's work tree the
registry goes at the work tree's top (--here keeps it in DIR), on a branch
of its own when the repository has commits (--layout).`,
		Example: examples(
			"megagit init team-skills", "a new registry in ./team-skills (git init first)",
			"megagit init .", "in a project: on a branch of its own, beside yours",
			"megagit init . --layout branch", "in a project: on its checked-out branch",
		),
		Args: maxArgs(1, "one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = a.workDir()
			if len(args) == 1 {
				opts.named = true
				opts.dir = args[0]
				if a.dir != "" && !isAbs(args[0]) {
					opts.dir = a.dir + "/" + args[0]
				}
			}
			return orRun(runF, initRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: root, layout, commit and the files the commit wrote")
	cmd.Flags().BoolVar(&opts.here, "here", false, "inside a git work tree, create the registry in DIR itself, not at the work tree's top (megagit then finds it only from inside DIR, or with -C)")
	cmd.Flags().StringVar(&opts.layout, "layout", "auto", "where the history goes, as `LAYOUT`: branch (the checked-out branch), ref (a branch of its own, \"megagit\", beside a project's) or auto (ref in a repository that has commits)")
	return cmd
}

func initRun(opts *initOptions) error {
	layout, err := registry.ParseLayout(opts.layout)
	if err != nil {
		return fmt.Errorf("--layout: %w", err)
	}
	// A project has one registry, at the top of its work tree: that is
	// where every megagit command run anywhere in the project finds it,
	// and where the agents read the project's settings and skills.
	if top, ok := registry.WorkTreeTop(opts.dir); ok && !opts.here {
		abs, err := filepath.Abs(opts.dir)
		if err != nil {
			return err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if abs != top {
			if opts.named {
				return withHint(fmt.Errorf("%w: %s is inside the git work tree %s: a project's registry goes at its top", errkind.ErrInvalid, opts.dir, top),
					fmt.Sprintf("run `megagit init %s`, or `megagit init --here %s` to keep it in that folder (megagit then finds it only from inside it, or with -C)", top, opts.dir))
			}
			opts.app.say(fmt.Sprintf("megagit: %s is inside the git work tree %s: creating the registry at its top", abs, top))
			opts.dir = top
		}
	}
	reg, layout, hash, err := workspace.Init(opts.dir, layout)
	if err != nil {
		return err
	}
	if layout == registry.LayoutRef {
		opts.app.say(fmt.Sprintf("megagit: initialised registry in %s on its own branch %s (commit %s); your checked-out branch is not touched", reg.Root(), registry.RefBranch.Short(), hash.String()[:12]))
	} else {
		opts.app.say(fmt.Sprintf("megagit: initialised registry in %s (commit %s)", reg.Root(), hash.String()[:12]))
	}
	if opts.json {
		files, err := reg.ChangedFiles(hash)
		if err != nil {
			return err
		}
		return printJSON(opts.app.out, map[string]any{"root": reg.Root(), "layout": string(layout), "commit": hash.String(), "files": files})
	}
	fmt.Fprintf(opts.app.out, "%s\n", reg.Root())
	return nil
}

func isAbs(p string) bool { return len(p) > 0 && p[0] == '/' }
