package cli

import (
	"context"
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/spf13/cobra"
)

type cloneOptions struct {
	app  *app
	url  string
	dir  string
	json bool
}

// newCloneCmd parses `megagit clone` into options and hands them to runF,
// or to cloneRun when runF is nil (tests pass a stub).
func newCloneCmd(a *app, runF func(*cloneOptions) error) *cobra.Command {
	opts := &cloneOptions{app: a}
	cmd := &cobra.Command{
		Use:   "clone URL [DIR]",
		Short: "Clone a shared registry, ready to use (ssh, https or file URLs)",
		Example: examples(
			"megagit clone git@github.com:acme/team-skills.git", "into ./team-skills",
			"megagit clone https://github.com/acme/team-skills skills", "into ./skills",
		),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError{fmt.Errorf("%s expects a URL and an optional DIR (got %d argument(s))", cmd.CommandPath(), len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.url = args[0]
			if len(args) == 2 {
				opts.dir = args[1]
			}
			return orRun(runF, cloneRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: url, root, skills")
	return cmd
}

func cloneRun(opts *cloneOptions) error {
	a := opts.app
	dir := opts.dir
	if dir == "" {
		dir = regsync.CloneDir(opts.url)
	}
	if a.dir != "" {
		dir = a.dir + "/" + dir
	}
	// No registry yet: the timeout comes from the environment.
	cfg, _, err := config.Load("", nil)
	if err != nil {
		return err
	}
	useNetwork(cfg)
	reg, err := regsync.Clone(context.Background(), opts.url, dir, registry.Options{
		Warn: func(s string) { a.say("megagit: warning: " + s) },
	})
	if err != nil {
		return netErr(err)
	}
	opened := *a
	opened.dir = reg.Root()
	e, err := opened.open(nil) // with the registry's own configured roots
	if err != nil {
		return err
	}
	skills, problems, err := e.Reg.Skills()
	if err != nil {
		return err
	}
	a.warnProblems(problems)
	a.say(fmt.Sprintf("megagit: cloned %s: %d skill(s); record verdicts, then `megagit sync`", gitauth.Redact(opts.url), len(skills)))
	if opts.json {
		return printJSON(a.out, map[string]any{"url": gitauth.Redact(opts.url), "root": reg.Root(), "skills": len(skills)})
	}
	fmt.Fprintln(a.out, reg.Root())
	return nil
}
