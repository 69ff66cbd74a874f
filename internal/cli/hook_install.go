package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type hookInstallOptions struct {
	app       *app
	uninstall bool
	agent     string
	scope     string
	dryRun    bool
	command   string
	lean      string
	mcp       bool
	json      bool
}

// newHookInstallCmd parses `megagit hook install` into options and hands
// them to runF, or to hookInstallRun when runF is nil (tests pass a stub).
func newHookInstallCmd(a *app, runF func(*hookInstallOptions) error) *cobra.Command {
	return hookInstallCmd(a, false, runF)
}

// newHookUninstallCmd is newHookInstallCmd for `megagit hook uninstall`.
func newHookUninstallCmd(a *app, runF func(*hookInstallOptions) error) *cobra.Command {
	return hookInstallCmd(a, true, runF)
}

func hookInstallCmd(a *app, uninstall bool, runF func(*hookInstallOptions) error) *cobra.Command {
	opts := &hookInstallOptions{app: a, uninstall: uninstall}
	use, short := "install", "Add megagit's hooks to an agent's settings file (idempotent)"
	if uninstall {
		use, short = "uninstall", "Remove megagit's hooks (and only those) from an agent's settings file"
	}
	example := examples(
		"megagit hook install", "Claude Code's hooks, in this project's settings",
		"megagit hook install --agent codex", "Codex's",
		"megagit hook install --scope user --mcp", "in your own settings, for every project, and MCP",
		"megagit hook install --dry-run", "the diff, writing nothing",
	)
	if uninstall {
		example = examples(
			"megagit hook uninstall", "take Claude Code's hooks out of this project",
			"megagit hook uninstall --agent gemini --scope user", "Gemini CLI's, from your own settings",
		)
	}
	cmd := &cobra.Command{
		Use:     use + " [--agent claude|codex|gemini|opencode|copilot] [--scope project|local|user]",
		Short:   short,
		Example: example,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkAgentFlag(opts.agent); err != nil {
				return err
			}
			if !slices.Contains(install.Scopes, opts.scope) {
				return usageError{fmt.Errorf("--scope %q: want project, local or user", opts.scope)}
			}
			return orRun(runF, hookInstallRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, hook.AgentList())
	cmd.Flags().StringVar(&opts.scope, "scope", install.ScopeProject, "project (the work tree's settings, shared in git), local (the work tree's settings kept to this machine: Claude Code's .claude/settings.local.json) or user (your home folder, from any folder: the hooks name your user registry, used where a project has none; with -C, that registry for every project)")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the diff and write nothing")
	cmd.Flags().BoolVar(&opts.mcp, "mcp", false, "also register (uninstall: remove) \"megagit mcp\" as the agent's MCP server")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: agent, scope, path, changed, dry_run, diff, mcp, next")
	if !uninstall {
		cmd.Flags().StringVar(&opts.command, "command", "", "how the agent runs megagit, as `CMD` (default: megagit if that is this binary on PATH, else its absolute path)")
		cmd.Flags().StringVar(&opts.lean, "hook-command", "", "how the agent runs megagit-hook for prompts, as `CMD`; none: \"megagit hook prompt\" (default: the megagit-hook next to this binary, unless --command is given)")
	}
	return cmd
}

// hookInstallRun installs or uninstalls the hooks (hook/install) for the
// registry around the working directory; a user-scope install for the
// user registry (created on first use), unless -C names one.
func hookInstallRun(opts *hookInstallOptions) error {
	a := opts.app
	inst := install.Options{
		Agent: opts.agent, Scope: opts.scope, Uninstall: opts.uninstall, DryRun: opts.dryRun,
		Command: opts.command, Lean: opts.lean, Out: a.out, ErrOut: a.errOut,
	}
	var diff strings.Builder
	if opts.json {
		inst.Out = &diff
	}
	switch {
	case opts.scope == install.ScopeUser && a.dir == "" && !opts.uninstall:
		// Your own hooks run in every project: they name the user
		// registry, for the folders with no registry of their own.
		dir, err := userRegistryFor(a, opts.dryRun)
		if err != nil {
			return err
		}
		inst.Root, inst.WorkTree, inst.UserRegistry = dir, dir, dir
	case opts.scope == install.ScopeUser && opts.uninstall:
	default:
		e, err := a.open(nil)
		if err != nil {
			return err
		}
		inst.Root, inst.WorkTree = e.Reg.Root(), e.Reg.WorkTree()
	}
	res, err := install.Run(inst)
	if err != nil {
		return err
	}
	if opts.mcp {
		if err := install.RunMCP(inst); err != nil {
			return err
		}
	}
	next := []string{}
	if !opts.uninstall {
		next = append(next, install.NextSteps(opts.agent, opts.scope)...)
	}
	for _, n := range next {
		a.say(fmt.Sprintf("megagit: next: %s", n))
	}
	if opts.json {
		return printJSON(a.out, map[string]any{"agent": opts.agent, "scope": opts.scope, "path": res.Path,
			"uninstall": opts.uninstall, "changed": res.Changed, "dry_run": opts.dryRun, "diff": diff.String(),
			"mcp": opts.mcp, "next": next})
	}
	return nil
}

// userRegistryFor is the user registry's folder for a user-scope install,
// created on first use (a dry run creates nothing and says so).
func userRegistryFor(a *app, dryRun bool) (string, error) {
	warn := func(s string) { a.say("megagit: warning: " + s) }
	dir, err := workspace.UserRegistryPath()
	if err != nil {
		return "", err
	}
	if workspace.UserRegistryExists(dir) {
		return dir, nil
	}
	if dryRun {
		a.say(fmt.Sprintf("megagit: would create your user registry at %s: the hooks route with it in every folder without a registry of its own", workspace.Describe(dir)))
		return dir, nil
	}
	w, _, err := workspace.OpenUser(nil, warn, true)
	if err != nil {
		return "", err
	}
	a.say(fmt.Sprintf("megagit: created your user registry at %s: the hooks route with it in every folder without a registry of its own", workspace.Describe(w.Reg.Root())))
	return w.Reg.Root(), nil
}
