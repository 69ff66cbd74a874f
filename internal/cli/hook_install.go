package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/local"
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
}

func newHookInstallCmd(a *app, uninstall bool) *cobra.Command {
	opts := &hookInstallOptions{app: a, uninstall: uninstall}
	use, short := "install", "Add megagit's hooks to an agent's settings file (idempotent; --dry-run shows the diff)"
	if uninstall {
		use, short = "uninstall", "Remove megagit's hooks (and only those) from an agent's settings file"
	}
	cmd := &cobra.Command{
		Use:   use + " [--agent claude|codex|gemini] [--scope project|user]",
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return hookInstallRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, "claude, codex or gemini")
	cmd.Flags().StringVar(&opts.scope, "scope", hook.ScopeProject, "project (the registry's work tree) or user (your home folder)")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the diff and write nothing")
	if !uninstall {
		cmd.Flags().StringVar(&opts.command, "command", "", "how the agent runs megagit (default: `megagit` if that is this binary on PATH, else its absolute path)")
		cmd.Flags().StringVar(&opts.lean, "hook-command", "", "how the agent runs megagit-hook for prompts; none: `megagit hook prompt` (default: the megagit-hook next to this binary, unless --command is given)")
	}
	return cmd
}

func hookInstallRun(opts *hookInstallOptions) error {
	a := opts.app
	if err := checkAgentFlag(opts.agent); err != nil {
		return err
	}
	if opts.scope != hook.ScopeProject && opts.scope != hook.ScopeUser {
		return usageError{fmt.Errorf("--scope %q: want project or user", opts.scope)}
	}
	var reg *registry.Registry
	if e, err := a.open(nil); err == nil {
		reg = e.reg
	} else if opts.scope == hook.ScopeProject {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil && opts.scope == hook.ScopeUser {
		return err
	}
	workTree := ""
	if reg != nil {
		workTree = reg.WorkTree()
	}
	path, err := hook.SettingsPath(opts.agent, opts.scope, workTree, home)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var updated []byte
	if opts.uninstall {
		if len(old) == 0 {
			fmt.Fprintf(a.errOut, "megagit: %s does not exist; nothing to remove\n", path)
			return nil
		}
		updated, err = hook.Uninstall(old)
	} else {
		var entries []hook.Entry
		command, lean := installCommand(opts, reg)
		if entries, err = hook.AgentEntries(opts.agent, command, lean); err == nil {
			updated, err = hook.Install(old, entries)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", local.ErrInvalid, path, err)
	}
	if string(updated) == string(old) {
		fmt.Fprintf(a.errOut, "megagit: %s is up to date\n", path)
		return nil
	}
	if opts.dryRun {
		fmt.Fprint(a.out, hook.Diff(path, path, string(old), string(updated)))
		return nil
	}
	if err := writeSettings(path, updated); err != nil {
		return err
	}
	verb := "installed megagit hooks in"
	if opts.uninstall {
		verb = "removed megagit hooks from"
	}
	fmt.Fprintf(a.errOut, "megagit: %s %s\n", verb, path)
	return nil
}

// installCommand is how the agent will run megagit, and megagit-hook for
// prompts ("" when it is not to be used): --command and --hook-command if
// given; else `megagit` when the binary on PATH is this one (portable,
// survives upgrades, fine to commit in a project's settings), else this
// binary's absolute path, and the megagit-hook next to it the same way. A
// user-scope install pins the registry with -C (every project then routes
// against it); so does a project install whose registry is not at the work
// tree's root, since the agent runs hooks from there.
func installCommand(opts *hookInstallOptions, reg *registry.Registry) (command, lean string) {
	command, lean = opts.command, opts.lean
	if command == "" {
		command = "megagit"
		exe, err := os.Executable()
		if err == nil {
			exe, _ = filepath.EvalSymlinks(exe)
		}
		onPath, lerr := exec.LookPath("megagit")
		if err == nil && (lerr != nil || !sameFile(onPath, exe)) {
			command = hook.ShellQuote(exe)
			if strings.HasPrefix(exe, os.TempDir()) {
				fmt.Fprintf(opts.app.errOut, "megagit: warning: %s is a temporary binary (go run?); install megagit (go install ./cmd/...) and run this again\n", exe)
			}
		}
		if lean == "" && err == nil {
			lean = leanCommand(opts, command, exe)
		}
	}
	if lean == "none" {
		lean = ""
	}
	if reg != nil && (opts.scope == hook.ScopeUser || reg.Root() != reg.WorkTree()) {
		command += " -C " + hook.ShellQuote(reg.Root())
		if lean != "" {
			lean += " -C " + hook.ShellQuote(reg.Root())
		}
	}
	return command, lean
}

// leanCommand runs the megagit-hook next to the megagit binary exe (run
// as command): by name when that is the one on PATH, else by path; ""
// with a note when there is none.
func leanCommand(opts *hookInstallOptions, command, exe string) string {
	sibling := filepath.Join(filepath.Dir(exe), "megagit-hook")
	if st, err := os.Stat(sibling); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		fmt.Fprintf(opts.app.errOut, "megagit: note: no megagit-hook next to %s: prompts run `megagit hook prompt`, which starts slower (install both: go install ./cmd/...)\n", exe)
		return ""
	}
	if onPath, err := exec.LookPath("megagit-hook"); command == "megagit" && err == nil && sameFile(onPath, sibling) {
		return "megagit-hook"
	}
	return hook.ShellQuote(sibling)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeSettings replaces the settings file atomically, keeping its mode.
func writeSettings(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return local.WriteFileAtomic(path, data, mode)
}
