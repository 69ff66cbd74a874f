package cli

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/spf13/cobra"
)

type remoteListOptions struct {
	app  *app
	json bool
}

type remoteAddOptions struct {
	app  *app
	name string
	url  string
	json bool
}

// newRemoteCmd is the remote group: on its own it lists the remotes; add
// is its leaf.
func newRemoteCmd(a *app) *cobra.Command {
	cmd := newRemoteListCmd(a, nil)
	cmd.AddCommand(newRemoteAddCmd(a, nil))
	return cmd
}

// newRemoteListCmd parses `megagit remote` (the list) into options and
// hands them to runF, or to remoteListRun when runF is nil.
func newRemoteListCmd(a *app, runF func(*remoteListOptions) error) *cobra.Command {
	opts := &remoteListOptions{app: a}
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "List or add the git remotes `megagit sync` shares the registry through",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, remoteListRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

// newRemoteAddCmd parses `megagit remote add` into options and hands them
// to runF, or to remoteAddRun when runF is nil.
func newRemoteAddCmd(a *app, runF func(*remoteAddOptions) error) *cobra.Command {
	opts := &remoteAddOptions{app: a}
	cmd := &cobra.Command{
		Use:   "add NAME URL",
		Short: "Add a git remote (same as `git remote add NAME URL`)",
		Example: examples(
			"megagit remote add origin git@github.com:acme/team-skills.git", "then megagit sync uses it",
			"megagit remote add backup file:///srv/git/team-skills.git", "a repository on this machine",
		),
		Args: exactArgs(2, "a remote NAME and a URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name, opts.url = args[0], args[1]
			return orRun(runF, remoteAddRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: name, url")
	return cmd
}

func remoteAddRun(opts *remoteAddOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	if err := regsync.AddRemote(e.Reg, opts.name, opts.url); err != nil {
		return err
	}
	opts.app.say(fmt.Sprintf("megagit: added remote %s (%s); share verdicts with `megagit sync`", opts.name, gitauth.Redact(opts.url)))
	if opts.json {
		return printJSON(opts.app.out, map[string]string{"name": opts.name, "url": opts.url})
	}
	return nil
}

func remoteListRun(opts *remoteListOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	remotes, err := regsync.Remotes(e.Reg)
	if err != nil {
		return err
	}
	for i := range remotes {
		for j, u := range remotes[i].URLs {
			remotes[i].URLs[j] = gitauth.Redact(u) // a password never reaches a terminal or a CI log
		}
	}
	if opts.json {
		if remotes == nil {
			remotes = []regsync.RemoteInfo{}
		}
		return printJSON(opts.app.out, remotes)
	}
	rows := make([][]string, len(remotes))
	for i, r := range remotes {
		rows[i] = []string{r.Name, strings.Join(r.URLs, " ")}
	}
	return printTable(opts.app.out, []string{"NAME", "URL"}, rows)
}
