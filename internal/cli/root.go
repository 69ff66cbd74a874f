// Package cli is every megagit command: cobra wiring, flag parsing and
// output. The work itself lives in the packages the commands call.
package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

// app carries the global flags and streams every command shares.
type app struct {
	dir    string // -C, --directory
	in     io.Reader
	out    io.Writer
	errOut io.Writer
	now    func() time.Time
	// megagit is this binary, which the prompt hook starts to refresh a
	// compiled index; nil (tests that run the hook in their own process)
	// rebuilds a missing index in process instead.
	megagit func() (string, error)
}

// Streams are the standard streams a command reads and writes, and its
// clock. A writer with an IsTerminal() bool method says itself whether it
// is a terminal; any other is one when it is an *os.File on a terminal.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Now    func() time.Time // nil: time.Now
}

// Run runs megagit with args (without the program name) and returns its
// exit code.
func Run(args []string, s Streams) int {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	return runAt(args, s.In, s.Out, s.ErrOut, now)
}

// version is megagit's release version, set at release time with
// -ldflags "-X github.com/megagit/megagit/internal/cli.version=..." (see
// .goreleaser.yaml); buildVersion falls back to the build's own record.
var version = "dev"

// run builds the command tree, runs it and maps the error to an exit code.
func run(args []string, in io.Reader, out, errOut io.Writer) int {
	return runAt(args, in, out, errOut, time.Now)
}

func runAt(args []string, in io.Reader, out, errOut io.Writer, now func() time.Time) int {
	a := &app{in: in, out: out, errOut: errOut, now: now, megagit: thisBinary}
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	printError(errOut, err, cmd)
	return exitCode(err)
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "megagit",
		Short:         "Git-backed skill registry and skill routing for AI coding agents",
		Long:          "megagit keeps an agent's SKILL.md skills in a git repository, picks the few skills worth\ninjecting for each prompt (or none), and records every verdict as a commit.",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       buildVersion().String(),
	}
	root.SetVersionTemplate("megagit {{.Version}}\n")
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpCommand(newHelpCmd())
	root.PersistentFlags().StringVarP(&a.dir, "directory", "C", "", "run as if megagit was started in `DIR`")
	// --dir was the long name before `model use --dir` (a model folder)
	// needed it: kept, hidden, for scripts that use it.
	root.PersistentFlags().StringVar(&a.dir, "dir", "", "run as if megagit was started in `DIR`")
	if err := root.PersistentFlags().MarkHidden("dir"); err != nil {
		panic(err)
	}
	// The note goes to stderr (pflag's own deprecation note would go to
	// the command's output, stdout here, and break --json).
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed && f.Hidden {
			fmt.Fprintln(a.errOut, "megagit: warning: --dir is deprecated: use -C or --directory")
		}
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddGroup(commandGroups()...)
	add := func(group string, cmds ...*cobra.Command) {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	add(groupEveryday,
		newInitCmd(a, nil),
		newRouteCmd(a, nil),
		newWhyCmd(a, nil),
		newVerdictCmd(a, nil),
		newLogCmd(a, nil),
		newRevertCmd(a, nil),
		newStatsCmd(a, nil),
		newDoctorCmd(a, nil),
	)
	add(groupSkills,
		newSkillCmd(a),
		newLintCmd(a, nil),
		newAuditCmd(a, nil),
		newUnarchiveCmd(a, nil),
	)
	add(groupAgents,
		newHookCmd(a),
		newAdoptCmd(a, nil),
		newLearnCmd(a),
		newMCPCmd(a, nil),
	)
	add(groupTeam,
		newSyncCmd(a, nil),
		newCloneCmd(a, nil),
		newRemoteCmd(a),
		newLayoutCmd(a, nil),
	)
	add(groupModels,
		newModelCmd(a),
		newEmbedCmd(a, nil),
		newServeCmd(a, nil),
		newEvalCmd(a, nil),
		newTuneCmd(a, nil),
	)
	add(groupMaintenance,
		newIndexCmd(a, nil),
		newCacheCmd(a),
		newDecisionsCmd(a, nil),
		newResyncCmd(a, nil),
		newConfigCmd(a, nil),
		newVersionCmd(a, nil),
		exitCodesTopic(),
	)
	root.SetHelpCommandGroupID(groupMaintenance)
	root.SetCompletionCommandGroupID(groupMaintenance)
	strictGroups(root)
	return root
}

// usageError marks bad flags or arguments (exit 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usageShown is a usage error printed after the command's usage (a group
// run without a subcommand prints its help first): no hint points at the
// usage again.
type usageShown struct{ err usageError }

func (u usageShown) Error() string { return u.err.Error() }
func (u usageShown) Unwrap() error { return u.err }

// resultError is an exit status that is the command's answer, not a
// failure (`skill update --check`: updates available, exit 11): the
// command printed the answer, so printError prints nothing more.
type resultError struct{ err error }

func (r resultError) Error() string { return r.err.Error() }
func (r resultError) Unwrap() error { return r.err }

// hintError carries extra `megagit: hint:` lines.
type hintError struct {
	err   error
	hints []string
}

func (h hintError) Error() string { return h.err.Error() }
func (h hintError) Unwrap() error { return h.err }

func withHint(err error, hints ...string) error { return hintError{err: err, hints: hints} }

// orRun is the runF seam of every newXCmd: the test's stub when one is
// given, else the command's own run function.
func orRun[O any](runF, run func(*O) error) func(*O) error {
	if runF != nil {
		return runF
	}
	return run
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s expects %s (got %d argument(s))", cmd.CommandPath(), what, len(args))}
		}
		return nil
	}
}

func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usageError{fmt.Errorf("%s takes at most %s (got %d arguments)", cmd.CommandPath(), what, len(args))}
		}
		return nil
	}
}

// printError prints err once, as megagit: error: and any hint lines, with
// the secrets of any URL in them redacted (an error from git may quote a
// remote's URL). The message is printed as it was worded where it was made
// (lowercase, no period at the end: internal/archtest checks megagit's own).
// A usage error gets one hint: its own (did you mean ...?), or else the
// help of cmd, the command that failed, unless its usage is printed
// already.
func printError(w io.Writer, err error, cmd *cobra.Command) {
	if _, ok := err.(resultError); ok {
		return
	}
	fmt.Fprintf(w, "megagit: error: %s\n", shownLines(gitauth.Redact(err.Error())))
	var h hintError
	if errors.As(err, &h) {
		for _, line := range h.hints {
			fmt.Fprintf(w, "megagit: hint: %s\n", shownLines(gitauth.Redact(line)))
		}
		return
	}
	var u usageError
	var shown usageShown
	if errors.As(err, &u) && !errors.As(err, &shown) {
		fmt.Fprintf(w, "megagit: hint: run `%s --help` for usage\n", helpPath(cmd))
	}
}

// helpPath is the command whose --help a usage error of cmd points at:
// cmd itself, its parent for the help command (`megagit help nosuch`), and
// the root when cmd is not known.
func helpPath(cmd *cobra.Command) string {
	switch {
	case cmd == nil:
		return "megagit"
	case cmd.HasParent() && cmd.Name() == "help" && !cmd.HasSubCommands():
		return cmd.Parent().CommandPath()
	}
	return cmd.CommandPath()
}

// workDir is where the command runs (-C or the current directory).
func (a *app) workDir() string {
	if a.dir != "" {
		return a.dir
	}
	return "."
}

// open opens the workspace around the working directory (flags override
// its config), printing the registry's warnings on stderr.
func (a *app) open(flags flagLookup) (*workspace.Workspace, error) {
	w, err := workspace.Open(a.workDir(), flags, func(s string) { fmt.Fprintf(a.errOut, "megagit: warning: %s\n", shownLines(s)) })
	if errors.Is(err, local.ErrNotRegistry) {
		return nil, notRegistry(a, err)
	}
	return w, err
}

// notRegistry is the error of a command run where no registry is found,
// with the way out: `megagit init`, which in a work tree of a project
// whose registry lives on its own branch (a linked worktree, a fresh
// clone) checks that branch out rather than starting another.
func notRegistry(a *app, err error) error {
	if branch := registry.BranchNotCheckedOut(a.workDir()); branch != "" {
		return withHint(fmt.Errorf("%w; this project keeps its registry on branch %s, which this work tree has not checked out into %s/", err, branch, local.MetaDir),
			"`megagit init` here checks it out into "+local.MetaDir+"/ (no commit made); the registry stays one, on branch "+registry.RefBranch.Short())
	}
	return withHint(err, "create one with `megagit init`, or point at one with -C DIR")
}

// say prints one line on stderr: the packages below cli pass their warnings
// and notes here, since they print nothing themselves.
func (a *app) say(line string) { fmt.Fprintln(a.errOut, shownLines(line)) }

// router reads the workspace's skills into a router, warning on stderr
// about skills that do not parse and a model that does not load; bodies
// as workspace.Router.
func (a *app) router(w *workspace.Workspace, bodies bool) (*route.Router, error) {
	return w.Router(a.warnProblems, a.say, bodies)
}

// registryRoot finds the registry around the working directory.
func registryRoot(a *app) (string, error) { return local.Find(a.workDir()) }
