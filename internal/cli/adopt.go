package cli

import (
	"fmt"

	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type adoptOptions struct {
	app     *app
	agent   string
	scope   string
	restore bool
	dryRun  bool
	json    bool
}

// newAdoptCmd parses `megagit adopt` into options and hands them to runF,
// or to adoptRun when runF is nil (tests pass a stub).
func newAdoptCmd(a *app, runF func(*adoptOptions) error) *cobra.Command {
	opts := &adoptOptions{app: a}
	cmd := &cobra.Command{
		Use:   "adopt [--agent A] [--scope S] [--restore] [--dry-run] [--json]",
		Short: "Move the agents' own skills into the registry, so megagit replaces their skill listing (--restore puts them back)",
		Long: `Adopt moves the skills of the agents' native skill folders into the registry,
so the agent no longer lists every skill in every prompt and megagit injects
only the few a prompt needs:

  - a native folder that is one of the registry's roots (.claude/skills in a
    project registry) has each skill moved to the first root (skills/), one
    commit each; git follows the files (git log --follow);
  - the skills of a native folder outside the registry (~/.claude/skills,
    ~/.agents/skills, ~/.gemini/skills, ...) are copied into the first root in
    one commit, and the original folders are moved aside into
    .megagit/local/adopted/ (symlinked skills and names the registry already
    has are left where they are).

adopt --restore undoes it on this machine: each skill goes back where its
agent reads it, from the registry's current files; one commit a skill.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch opts.agent {
			case "", "all", "claude", "codex", "gemini":
			default:
				return usageError{fmt.Errorf("--agent %q: want claude, codex, gemini or all", opts.agent)}
			}
			switch opts.scope {
			case "", "all", workspace.KindProject, workspace.KindUser:
			default:
				return usageError{fmt.Errorf("--scope %q: want project, user or all", opts.scope)}
			}
			return orRun(runF, adoptRun)(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "all", "whose skill folders: claude, codex, gemini or all")
	f.StringVar(&opts.scope, "scope", "all", "project (the registry's work tree), user (your home folder) or all")
	f.BoolVar(&opts.restore, "restore", false, "put adopted skills back in the agents' folders")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what would move and change nothing")
	f.BoolVar(&opts.json, "json", false, "print JSON: restore, dry_run, done, skipped")
	return cmd
}

func adoptRun(opts *adoptOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	o := workspace.AdoptOptions{Agent: opts.agent, Scope: opts.scope, DryRun: opts.dryRun, Now: a.now()}
	if o.Agent == "all" {
		o.Agent = ""
	}
	if o.Scope == "all" {
		o.Scope = ""
	}
	var res workspace.AdoptResult
	if opts.restore {
		res, err = e.Restore(o)
	} else {
		res, err = e.Adopt(o)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(a.errOut, "megagit: left %s (%s): %s\n", s.Name, s.From, s.Reason)
	}
	if err != nil {
		return err
	}
	verb := map[bool]string{false: "adopted", true: "restored"}[opts.restore]
	if opts.dryRun {
		verb = "would be " + verb
	}
	fmt.Fprintf(a.errOut, "megagit: %d skill(s) %s\n", len(res.Done), verb)
	if !opts.restore && !opts.dryRun && len(res.Done) > 0 {
		fmt.Fprintf(a.errOut, "megagit: the agents no longer list them; megagit's hooks inject the ones a prompt needs (`megagit hook install` if not done). Undo: megagit adopt --restore\n")
	}
	if opts.json {
		return printJSON(a.out, map[string]any{"restore": opts.restore, "dry_run": opts.dryRun, "done": res.Done, "skipped": res.Skipped})
	}
	rows := [][]string{}
	for _, d := range res.Done {
		to := d.Path
		if opts.restore {
			to = d.From
		}
		rows = append(rows, []string{d.Name, d.Agent, d.Scope, d.From, to})
	}
	if len(rows) == 0 {
		return nil
	}
	header := []string{"SKILL", "AGENT", "SCOPE", "FROM", "TO"}
	if opts.restore {
		header = []string{"SKILL", "AGENT", "SCOPE", "REGISTRY", "BACK TO"}
		for i, d := range res.Done {
			rows[i][3] = d.Path
		}
	}
	return printTable(a.out, header, rows)
}
