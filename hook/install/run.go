// Package install adds megagit's hooks to an agent's settings file (Claude
// Code, Codex CLI, Gemini CLI, Copilot CLI; opencode: a plugin file of
// megagit's own) and takes them out again: it finds the file
// for a scope, merges or removes megagit's entries and keeps everything
// else in the user's order, picks how the agent will run megagit and
// megagit-hook, and writes the file atomically.
package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
)

// Options are one `megagit hook install` or `megagit hook uninstall`
// call's, with the agent and scope already checked.
type Options struct {
	Agent     string
	Scope     string // ScopeProject, ScopeLocal or ScopeUser
	Uninstall bool
	DryRun    bool   // print the diff on Out and write nothing
	Command   string // how the agent runs megagit; "": this binary (see commands)
	Lean      string // how it runs megagit-hook for prompts; "none": it does not; "": the one next to this binary
	// Root and WorkTree are the registry's, "" when none was found (a
	// user-scope install can do without one).
	Root, WorkTree string
	// UserRegistry, for a user-scope install, is the user registry the
	// hooks fall back to where the agent's folder has no registry
	// (--user-registry DIR in every command, and no -C).
	UserRegistry string
	Out, ErrOut  io.Writer
}

// Result is what one Run did to one settings file.
type Result struct {
	Path    string
	Changed bool // the file was (or, with DryRun, would be) rewritten
}

// Run installs or uninstalls megagit's hooks for one agent and scope and
// says what it did on ErrOut.
func Run(opts Options) (Result, error) {
	home, err := os.UserHomeDir()
	if err != nil && opts.Scope == ScopeUser {
		return Result{}, err
	}
	path, err := SettingsPath(opts.Agent, opts.Scope, opts.WorkTree, home)
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: path}
	target, old, err := readSettings(path)
	if err != nil {
		return res, err
	}
	var updated []byte
	if opts.Uninstall {
		if len(old) == 0 {
			fmt.Fprintf(opts.ErrOut, "megagit: %s does not exist; nothing to remove\n", path)
			return res, nil
		}
		updated, err = remove(opts.Agent, old)
	} else {
		var entries []Entry
		command, lean := commands(opts)
		if entries, err = AgentEntries(opts.Agent, command, lean); err == nil {
			if opts.UserRegistry != "" {
				for i := range entries {
					entries[i].Command += " " + hook.UserRegistryFlag + " " + ShellQuote(opts.UserRegistry)
				}
			}
			updated, err = merge(opts.Agent, old, entries)
		}
	}
	if err != nil {
		return res, fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, path, err)
	}
	if string(updated) == string(old) {
		fmt.Fprintf(opts.ErrOut, "megagit: %s is up to date\n", path)
		return res, nil
	}
	res.Changed = true
	if opts.DryRun {
		fmt.Fprint(opts.Out, Diff(path, path, string(old), string(updated)))
		return res, nil
	}
	if updated == nil {
		// The file was megagit's alone (Copilot CLI's hooks file, the
		// opencode plugin): uninstall takes it away.
		if err := os.Remove(target); err != nil {
			return res, err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return res, err
		}
		if err := writeSettings(target, updated); err != nil {
			return res, err
		}
	}
	verb := "installed megagit hooks in"
	if opts.Uninstall {
		verb = "removed megagit hooks from"
	}
	fmt.Fprintf(opts.ErrOut, "megagit: %s %s\n", verb, path)
	return res, nil
}

// merge adds entries to agent's settings file old, in its format.
func merge(agent string, old []byte, entries []Entry) ([]byte, error) {
	switch agent {
	case hook.AgentCopilot:
		return MergeCopilot(old, entries)
	case hook.AgentOpencode:
		if len(old) > 0 && !ownPlugin(old) {
			return nil, errNotOurs
		}
		return OpencodePlugin(entries), nil
	}
	return Merge(old, entries)
}

// remove takes megagit's entries out of agent's settings file old; nil
// when the file is to go.
func remove(agent string, old []byte) ([]byte, error) {
	switch agent {
	case hook.AgentCopilot:
		return RemoveCopilot(old)
	case hook.AgentOpencode:
		if !ownPlugin(old) {
			return old, nil // not megagit's: left alone
		}
		return nil, nil
	}
	return Remove(old)
}

// errNotOurs is a file where megagit's own would go that someone else wrote.
var errNotOurs = errors.New("the file is not megagit's (it does not start with megagit's header); move it away, then install again")

// commands is how the agent will run megagit, and megagit-hook for
// prompts ("" when it is not to be used): --command and --hook-command if
// given; else `megagit` when the binary on PATH is this one (portable,
// survives upgrades, fine to commit in a project's settings), else this
// binary's absolute path, and the megagit-hook next to it the same way.
// A project-scope file is committed and shared, so it never holds a path
// of this machine: it always runs `megagit` (warning when that is not this
// binary; --scope local pins it instead). A user-scope install names the
// user registry (Options.UserRegistry), or with a registry given by -C
// pins that one (every project then routes against it); so does a
// project install whose registry is not at the work tree's root, with
// the path relative to that root (hook.RegistryDir resolves it against the
// project of the agent's working directory).
func commands(opts Options) (command, lean string) {
	command, lean = opts.Command, opts.Lean
	shared := opts.Scope == ScopeProject
	if command == "" && shared {
		return sharedCommands(opts)
	}
	if command == "" {
		command = "megagit"
		exe, err := os.Executable()
		if err == nil {
			exe, _ = filepath.EvalSymlinks(exe)
		}
		onPath, lerr := exec.LookPath("megagit")
		if err == nil && (lerr != nil || !sameFile(onPath, exe)) {
			command = ShellQuote(exe)
			if strings.HasPrefix(exe, os.TempDir()) {
				fmt.Fprintf(opts.ErrOut, "megagit: warning: %s is a temporary binary (go run?); install megagit (go install ./cmd/...) and run this again\n", exe)
			}
		}
		if lean == "" && err == nil {
			lean = leanCommand(opts, command, exe)
		}
	}
	if lean == "none" {
		lean = ""
	}
	return pinRegistry(opts, command, lean)
}

// pinRegistry adds -C to the commands where the registry must be named:
// absolute for the user's own files, relative to the work tree in a
// project's shared one.
func pinRegistry(opts Options, command, lean string) (string, string) {
	if opts.Root == "" || opts.UserRegistry != "" || (opts.Scope != ScopeUser && opts.Root == opts.WorkTree) {
		return command, lean
	}
	dir := opts.Root
	if opts.Scope == ScopeProject {
		if rel, err := filepath.Rel(opts.WorkTree, opts.Root); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			dir = filepath.ToSlash(rel)
		}
	}
	command += " -C " + ShellQuote(dir)
	if lean != "" {
		lean += " -C " + ShellQuote(dir)
	}
	return command, lean
}

// sharedCommands are the commands of a project-scope install without
// --command: by name only, whatever this machine's paths.
func sharedCommands(opts Options) (command, lean string) {
	exe, err := os.Executable()
	if err == nil {
		exe, _ = filepath.EvalSymlinks(exe)
	}
	onPath, lerr := exec.LookPath("megagit")
	if err == nil && (lerr != nil || !sameFile(onPath, exe)) {
		fmt.Fprintf(opts.ErrOut, "megagit: warning: %s is not the megagit on your PATH: the project's settings are shared, so they run `megagit` by name; put this megagit on PATH (go install ./cmd/...), or use --scope local to pin its path in settings kept to this machine\n", exe)
	}
	switch {
	case opts.Lean == "none":
	case opts.Lean != "":
		lean = opts.Lean
	default:
		if p, err := exec.LookPath("megagit-hook"); err == nil && p != "" {
			lean = "megagit-hook"
		} else {
			fmt.Fprintf(opts.ErrOut, "megagit: note: no megagit-hook on your PATH: prompts run `megagit hook prompt`, which starts slower (install both: go install ./cmd/...)\n")
		}
	}
	return pinRegistry(opts, "megagit", lean)
}

// leanCommand runs the megagit-hook next to the megagit binary exe (run
// as command): by name when that is the one on PATH, else by path; ""
// with a note when there is none.
func leanCommand(opts Options, command, exe string) string {
	sibling := filepath.Join(filepath.Dir(exe), "megagit-hook")
	if st, err := os.Stat(sibling); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		fmt.Fprintf(opts.ErrOut, "megagit: note: no megagit-hook next to %s: prompts run `megagit hook prompt`, which starts slower (install both: go install ./cmd/...)\n", exe)
		return ""
	}
	if onPath, err := exec.LookPath("megagit-hook"); command == "megagit" && err == nil && sameFile(onPath, sibling) {
		return "megagit-hook"
	}
	return ShellQuote(sibling)
}

func sameFile(a, b string) bool { return hook.SameFile(a, b) }

// maxSettings bounds an agent's settings file (~/.claude.json keeps every
// project's history, so it is not small).
const maxSettings = 64 << 20

// readSettings reads an agent's settings file (none: empty) and says
// which file to write back: path itself, or, when path is a symlink (into
// a dotfiles repository, say), the regular file it points to, written in
// place so the link stays. A FIFO, a device or a dangling link is refused.
func readSettings(path string) (target string, data []byte, err error) {
	target = path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return "", nil, fmt.Errorf("%w: %s is a symlink to a file that does not exist; create that file or remove the link", errkind.ErrInvalid, path)
		}
	}
	data, err = local.ReadRegular(target, maxSettings)
	if errors.Is(err, fs.ErrNotExist) {
		return target, nil, nil
	}
	if err != nil && target != path {
		err = fmt.Errorf("%s (a symlink): %w", path, err)
	}
	return target, data, err
}

// writeSettings replaces the settings file atomically, keeping its mode.
func writeSettings(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return local.WriteFileAtomic(path, data, mode)
}
