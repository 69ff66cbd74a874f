package cli

import (
	"fmt"
	"path/filepath"

	"github.com/megagit/megagit/audit"
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
	allow   []string
}

// newAdoptCmd parses `megagit adopt` into options and hands them to runF,
// or to adoptRun when runF is nil (tests pass a stub).
func newAdoptCmd(a *app, runF func(*adoptOptions) error) *cobra.Command {
	opts := &adoptOptions{app: a}
	cmd := &cobra.Command{
		Use:   "adopt [--agent A] [--scope S] [--restore] [--dry-run] [--json]",
		Short: "Move the agents' own skills into a registry, so megagit replaces their skill listing (--restore puts them back)",
		Long: `Adopt moves the skills of the agents' native skill folders into a registry,
so the agent no longer lists every skill in every prompt and megagit injects
only the few a prompt needs. --scope says whose skills, and where they go:

  project  (the default in a project) the project's folders (.claude/skills,
           .agents/skills, .gemini/skills) into this registry: a folder that
           is one of its roots has each skill moved to the first root
           (skills/), one commit each, and git follows the files (git log
           --follow); the others' skills are copied into the first root in
           one commit, the originals moved aside into .megagit/local/adopted/
  user     your personal skills (~/.claude/skills, ~/.agents/skills,
           ~/.codex/skills, ~/.gemini/skills) into your user registry
           (${XDG_DATA_HOME:-~/.local/share}/megagit/user, or user_registry in
           ~/.config/megagit/config.yaml), created on first use and never
           shared unless you give it a remote: every project keeps reading
           them, as user skills
  all      both, each to its own registry

Symlinked skills, names the destination registry already has, SKILL.md files
that do not pass lint, skill folders in which megagit audit finds something
high (unless --allow names its rule), and personal skills whose name this project has (its
skill shadows yours here) are left where they are, each with why. The
verdicts megagit recorded for a skill while it sat in the agent's folder
become its ledger and evidence in the registry.

adopt --restore undoes it on this machine, for the same --scope: each skill
goes back where its agent reads it (inside this project, or your home
folder, whatever the project's path is now), from the registry's current
files, with the file modes it had; its verdicts go back to the evidence of
read-only skills; one commit a skill. Each step of adopt and restore is
journaled first: after a kill, megagit doctor reports it and doctor --fix
(or the next adopt or restore) finishes or undoes it.`,
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
			if err := audit.CheckAllow(opts.allow); err != nil {
				return usageError{err}
			}
			return orRun(runF, adoptRun)(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "all", "whose skill folders: claude, codex, gemini or all")
	f.StringVar(&opts.scope, "scope", "", "project (the project's folders into this registry; the default in a project), user (your home's into your user registry) or all")
	f.BoolVar(&opts.restore, "restore", false, "put adopted skills back in the agents' folders")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what would move and change nothing")
	f.BoolVar(&opts.json, "json", false, "print JSON: restore, dry_run, done, skipped")
	f.StringArrayVar(&opts.allow, "allow", nil, "adopt skills whose high audit findings are of this `RULE` all the same (repeatable; `megagit audit --help` lists the rules)")
	return cmd
}

func adoptRun(opts *adoptOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	o := workspace.AdoptOptions{Agent: opts.agent, Scope: opts.scope, DryRun: opts.dryRun, Now: a.now(), Allow: opts.allow}
	if o.Agent == "all" {
		o.Agent = ""
	}
	var res workspace.AdoptResult
	if opts.restore {
		res, err = e.Restore(o)
	} else {
		res, err = e.Adopt(o)
	}
	for _, s := range res.Skipped {
		a.say(fmt.Sprintf("megagit: left %s (%s): %s", s.Name, workspace.Describe(s.From), s.Reason))
	}
	if err != nil {
		return err
	}
	for _, d := range res.Done {
		if d.Kept != "" {
			a.say(fmt.Sprintf("megagit: restored %s to %s; %s", d.Name, workspace.Describe(d.Dir), workspace.KeptNote(d.Kept)))
		}
	}
	verb := map[bool]string{false: "adopted", true: "restored"}[opts.restore]
	if opts.dryRun {
		verb = "would be " + verb
	}
	fmt.Fprintf(a.errOut, "megagit: %d skill(s) %s\n", len(res.Done), verb)
	if !opts.restore && !opts.dryRun && len(res.Done) > 0 {
		fmt.Fprintf(a.errOut, "megagit: the agents no longer list them; megagit's hooks inject the ones a prompt needs (`megagit hook install` if not done). Undo: megagit adopt --restore%s\n", scopeFlag(opts.scope))
	}
	for _, d := range res.Done {
		if !opts.restore && d.Scope == workspace.KindUser && d.Registry != e.Reg.Root() {
			a.say(fmt.Sprintf("megagit: personal skills go to your user registry %s, which every project reads", workspace.Describe(d.Registry)))
			break
		}
	}
	if opts.restore {
		if n := res.Left[workspace.KindUser]; n > 0 {
			fmt.Fprintf(a.errOut, "megagit: %d personal skill(s) stay adopted in your user registry (`megagit adopt --restore --scope user` puts them back)\n", n)
		}
		if n := res.Left[workspace.KindProject]; n > 0 && opts.scope == workspace.KindUser {
			fmt.Fprintf(a.errOut, "megagit: %d skill(s) of this project stay adopted (`megagit adopt --restore --scope project` puts them back)\n", n)
		}
	}
	if opts.json {
		return printJSON(a.out, map[string]any{"restore": opts.restore, "dry_run": opts.dryRun, "done": res.Done, "skipped": res.Skipped})
	}
	rows := [][]string{}
	for _, d := range res.Done {
		in := d.Path
		if d.Registry != e.Reg.Root() {
			in = workspace.Describe(filepath.Join(d.Registry, filepath.FromSlash(d.Path)))
		}
		from, to := workspace.Describe(d.Dir), in
		if opts.restore {
			from, to = in, workspace.Describe(d.Dir)
		}
		rows = append(rows, []string{d.Name, d.Agent, d.Scope, from, to})
	}
	if len(rows) == 0 {
		return nil
	}
	header := []string{"SKILL", "AGENT", "SCOPE", "FROM", "TO"}
	if opts.restore {
		header = []string{"SKILL", "AGENT", "SCOPE", "REGISTRY", "BACK TO"}
	}
	return printTable(a.out, header, rows)
}

// scopeFlag is --scope as the user gave it, for a command to suggest.
func scopeFlag(scope string) string {
	if scope == "" {
		return ""
	}
	return " --scope " + scope
}
