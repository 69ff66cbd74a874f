package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/workspace"
	"github.com/megagit/megagit/workspace/adopt"
	"github.com/spf13/cobra"
)

type adoptOptions struct {
	app     *app
	agent   string
	scope   string
	restore bool
	dryRun  bool
	json    bool
	except  []string
	shared  bool
	allow   []string
	// codexDisable writes Codex's enabled = false, which takes $NAME too.
	codexDisable bool
}

// newAdoptCmd parses `megagit adopt` into options and hands them to runF,
// or to adoptRun when runF is nil (tests pass a stub).
func newAdoptCmd(a *app, runF func(*adoptOptions) error) *cobra.Command {
	opts := &adoptOptions{app: a}
	cmd := &cobra.Command{
		Use:   "adopt [--agent A] [--scope S] [--except NAME]... [--shared] [--codex-disable] [--restore] [--dry-run] [--json]",
		Short: "Hide the skills megagit routes from the agents' own skill listings",
		Long: `Adopt turns off the agents' own listing of the skills megagit routes, so the
agent no longer lists every skill in every prompt and megagit injects only
the few a prompt needs. No skill file moves: each skill stays where you keep
it, and adopt writes the agent's own per-skill setting instead:

  Claude Code  skillOverrides: {"NAME": "user-invocable-only"}: the model's
               listing drops the skill, your /NAME command stays. A personal
               skill's (~/.claude/skills) goes into ~/.claude/settings.json, a
               project's (.claude/skills) into .claude/settings.local.json
               (this machine only), or with --shared into the project's
               .claude/settings.json
  Gemini CLI   the skill's name in skills.disabled of ~/.gemini/settings.json
               (personal skills) or the project's .gemini/settings.json
  Codex        nothing unless --codex-disable: Codex's one per-skill
               setting, [[skills.config]] path = SKILL.md, enabled = false
               in ~/.codex/config.toml (the only file whose skills.config
               Codex reads, for a project's skills too), also takes the
               skill out of your $NAME mentions and the skills picker;
               without the flag Codex keeps listing its skills, and adopt
               says so for each

--scope says whose skills: project (the default in a project: the
project's .claude/skills, .agents/skills, .gemini/skills), user (your
personal skills: ~/.claude/skills, ~/.agents/skills, ~/.codex/skills,
~/.gemini/skills; it works from any folder, and what adopt wrote is kept in
your user registry, created on first use) or all.

Adopt leaves alone: a skill the agent already keeps from the model
(disable-model-invocation: true, Codex's allow_implicit_invocation: false,
a name in Gemini CLI's skills.disabled, a skillOverrides value you set, an
entry of yours for it in Codex's [[skills.config]]),
every skill --except names, a skill megagit would not inject (disabled,
denied, or its rules unreadable), and a skill folder in which megagit audit
finds something high (unless --allow names its rule), each with why.

adopt --restore takes back exactly the settings adopt wrote, for the same
--scope; one you changed since is left as it is, with a note. Skills an
earlier megagit moved into a registry go back to their agent's folder (with
their .git, modes and verdicts) on adopt, adopt --restore or doctor --fix.
Each write is journaled first: after a kill, doctor --fix (or the next adopt
or restore) finishes it.`,
		Example: examples(
			"megagit adopt --dry-run", "what would change, changing nothing",
			"megagit adopt", "hide this project's skills from the agents' listings",
			"megagit adopt --scope user --except pdf-forms", "your personal skills, all but one",
			"megagit adopt --restore", "show them in the agents' listings again",
		),
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
			for _, n := range opts.except {
				if strings.TrimSpace(n) == "" || strings.ContainsAny(n, `/\`) {
					return usageError{fmt.Errorf("--except %q: want a skill's name", n)}
				}
			}
			if err := audit.CheckAllow(opts.allow); err != nil {
				return usageError{err}
			}
			if opts.codexDisable && (opts.restore || opts.agent != "all" && opts.agent != "codex") {
				return usageError{fmt.Errorf("--codex-disable: only to adopt for Codex (--agent codex or all, no --restore: restore takes Codex's entries back without it)")}
			}
			return orRun(runF, adoptRun)(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.agent, "agent", "all", "whose listings: claude, codex, gemini or all")
	f.StringVar(&opts.scope, "scope", "", "project (the project's skills; the default in a project), user (your personal skills) or all")
	f.StringSliceVar(&opts.except, "except", nil, "leave the skill `NAME` in the agents' own listings (repeatable, or comma-separated)")
	f.BoolVar(&opts.shared, "shared", false, "write a project's Claude Code settings into its shared .claude/settings.json (default: this machine's .claude/settings.local.json)")
	f.BoolVar(&opts.codexDisable, "codex-disable", false, "for Codex, write enabled = false in ~/.codex/config.toml all the same: the skill leaves Codex's listing and your $NAME and skills picker too")
	f.BoolVar(&opts.restore, "restore", false, "take back the settings adopt wrote")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what would change and change nothing")
	f.BoolVar(&opts.json, "json", false, "print JSON: restore, dry_run, hidden, shown, already, moved_back, skipped")
	f.StringArrayVar(&opts.allow, "allow", nil, "adopt skills whose high audit findings are of this `RULE` all the same (repeatable; `megagit audit --help` lists the rules)")
	return cmd
}

func adoptRun(opts *adoptOptions) error {
	a := opts.app
	e, done, err := adoptWorkspace(opts)
	if err != nil || e == nil {
		return err
	}
	defer done()
	o := adopt.Options{Agent: opts.agent, Scope: opts.scope, DryRun: opts.dryRun, Now: a.now(), Except: opts.except, Shared: opts.shared, Allow: opts.allow,
		CodexDisable: opts.codexDisable}
	if o.Agent == "all" {
		o.Agent = ""
	}
	var res adopt.Result
	if opts.restore {
		res, err = adopt.Restore(e, o)
	} else {
		res, err = adopt.Adopt(e, o)
	}
	for _, s := range res.Skipped {
		a.say(fmt.Sprintf("megagit: left %s (%s): %s", s.Name, workspace.Describe(s.From), s.Reason))
	}
	would := map[bool]string{true: "would be ", false: ""}[opts.dryRun]
	for _, d := range res.Done {
		a.say(fmt.Sprintf("megagit: %s %s to %s (an earlier megagit had moved it into %s)", map[bool]string{true: "would move back", false: "moved back"}[opts.dryRun], d.Name, workspace.Describe(d.Dir), workspace.Describe(d.Registry)))
		if d.Kept != "" {
			a.say(fmt.Sprintf("megagit: %s", adopt.KeptNote(d.Kept)))
		}
	}
	if err != nil {
		return err
	}
	if opts.restore {
		a.say(fmt.Sprintf("megagit: %d setting(s) %staken back", len(res.Shown), would))
		if n := res.Left[workspace.KindUser]; n > 0 && opts.scope != workspace.KindUser && opts.scope != "all" {
			a.say(fmt.Sprintf("megagit: %d setting(s) for your personal skills stay (`megagit adopt --restore --scope user` takes them back)", n))
		}
		if n := res.Left[workspace.KindProject]; n > 0 && opts.scope == workspace.KindUser {
			a.say(fmt.Sprintf("megagit: %d setting(s) for this project's skills stay (`megagit adopt --restore --scope project` takes them back)", n))
		}
	} else {
		line := fmt.Sprintf("megagit: %d skill(s) %shidden from the agents' own listings", len(res.Hidden), would)
		if res.Already > 0 {
			line += fmt.Sprintf(" (%d already were)", res.Already)
		}
		a.say(line)
		if len(res.Hidden) > 0 && !opts.dryRun {
			install := "megagit hook install"
			if opts.scope == workspace.KindUser {
				install += " --scope user"
			}
			a.say(fmt.Sprintf("megagit: the skills stay where they are and keep their /NAME commands; megagit's hooks inject the ones a prompt needs (`%s` if not done). Undo: megagit adopt --restore%s", install, scopeFlag(opts.scope)))
			for _, h := range res.Hidden {
				if h.Agent == "codex" {
					a.say("megagit: in Codex, the skills disabled are out of your $NAME mentions and skills picker too, until `megagit adopt --restore`")
					break
				}
			}
		}
		if len(res.Hidden) == 0 && res.Already == 0 && len(res.Skipped) == 0 && opts.scope == "" && !e.IsUserRegistry() {
			if n := personalSkills(e); n > 0 {
				a.say(fmt.Sprintf("megagit: this project has no skill of its own to hide; your %d personal skill(s) are adopted with `megagit adopt --scope user`", n))
			}
		}
	}
	if opts.json {
		return printJSON(a.out, map[string]any{"restore": opts.restore, "dry_run": opts.dryRun, "hidden": res.Hidden, "shown": res.Shown,
			"already": res.Already, "moved_back": res.Done, "skipped": res.Skipped})
	}
	list := res.Hidden
	if opts.restore {
		list = res.Shown
	}
	if len(list) == 0 {
		return nil
	}
	rows := [][]string{}
	for _, h := range list {
		last := h.Value
		if opts.restore {
			last = h.Note
			if last == "" {
				last = "removed " + h.Value
			}
		}
		rows = append(rows, []string{h.Name, h.Agent, h.Scope, workspace.Describe(h.Path), last})
	}
	header := []string{"SKILL", "AGENT", "SCOPE", "SETTINGS FILE", "VALUE"}
	if opts.restore {
		header[4] = "DONE"
	}
	return printTable(a.out, header, rows)
}

// adoptWorkspace is the registry adopt acts on: for --scope user the user
// registry, from any folder (created on first use; a dry run before it
// exists previews it and creates nothing), unless -C names a registry;
// else the registry around the working directory. nil with no error: there
// is nothing to do, and adopt said so.
func adoptWorkspace(opts *adoptOptions) (*workspace.Workspace, func(), error) {
	a := opts.app
	nothing := func() {}
	if opts.scope != workspace.KindUser || a.dir != "" {
		e, err := a.open(nil)
		if errors.Is(err, local.ErrNotRegistry) && opts.scope != workspace.KindProject {
			err = withHint(err, "for your personal skills (~/.claude/skills and the like), from any folder: `megagit adopt --scope user`")
		}
		return e, nothing, err
	}
	warn := func(s string) { a.say("megagit: warning: " + s) }
	e, _, err := workspace.OpenUser(nil, warn, false)
	switch {
	case errors.Is(err, workspace.ErrNoUserRegistry) && opts.restore:
		a.say(fmt.Sprintf("megagit: 0 setting(s) taken back: adopt --scope user has not run (%v)", err))
		return nil, nothing, nil
	case errors.Is(err, workspace.ErrNoUserRegistry) && opts.dryRun:
		dir, _ := workspace.UserRegistryPath()
		a.say(fmt.Sprintf("megagit: adopt would first create your user registry at %s, which keeps what adopt writes", workspace.Describe(dir)))
		return workspace.PreviewUser(warn)
	case errors.Is(err, workspace.ErrNoUserRegistry):
		var created bool
		if e, created, err = workspace.OpenUser(nil, warn, true); err == nil && created {
			a.say(fmt.Sprintf("megagit: created your user registry at %s, which keeps what adopt writes", workspace.Describe(e.Reg.Root())))
		}
	}
	return e, nothing, err
}

// personalSkills counts the personal skills (the agents' user folders)
// e reads, for the hint of an adopt that found nothing in the project.
func personalSkills(e *workspace.Workspace) int {
	c, err := e.Catalog()
	if err != nil {
		return 0
	}
	n := 0
	for _, s := range c.Skills {
		if s.Kind == workspace.KindUser && s.Plugin == "" {
			n++
		}
	}
	return n
}

// scopeFlag is --scope as the user gave it, for a command to suggest.
func scopeFlag(scope string) string {
	if scope == "" {
		return ""
	}
	return " --scope " + scope
}
