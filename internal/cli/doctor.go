package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace/adopt"
	"github.com/megagit/megagit/workspace/checkup"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	app     *app
	json    bool
	fix     bool
	offline bool
	timeout time.Duration
}

// newDoctorCmd parses `megagit doctor` into options and hands them to runF,
// or to doctorRun when runF is nil (tests pass a stub).
func newDoctorCmd(a *app, runF func(*doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{app: a}
	cmd := &cobra.Command{
		Use:   "doctor [--json] [--fix]",
		Short: "Check the registry, its caches, lock, hooks and remote; --fix repairs",
		Long: `doctor runs every check and prints ok, warn or fail for each. It exits 0
when nothing fails and 10 when something does. --fix finishes an interrupted
write (an interrupted change of layout too) and rebuilds evidence from the
ledgers (megagit resync), then checks again;
commits that git fsck --strict rejects cannot be repaired in place: --fix
prints the steps that rewrite the history.`,
		Example: examples(
			"megagit doctor", "run every check",
			"megagit doctor --fix", "repair what can be repaired, then check again",
			"megagit doctor --offline", "skip the remote's reachability check",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.timeout < 0 {
				return usageError{fmt.Errorf("--timeout %v: want a duration of 0 or more", opts.timeout)}
			}
			return orRun(runF, doctorRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the checks as JSON")
	cmd.Flags().BoolVar(&opts.fix, "fix", false, "repair what can be repaired (interrupted write, stale evidence)")
	cmd.Flags().BoolVar(&opts.offline, "offline", false, "skip the remote reachability check")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 5*time.Second, "how long to wait for the git remote")
	return cmd
}

func doctorRun(opts *doctorOptions) error {
	a := opts.app
	root, err := registryRoot(a)
	// Outside every registry, your user-scope hooks route with the user
	// registry: check that one.
	if errors.Is(err, local.ErrNotRegistry) && useUserRegistry(a, "checking") {
		root, err = a.dir, nil
	}
	if err != nil {
		return notRegistry(a, err)
	}
	if was := local.LocalDirKind(root); was != "" {
		// A symlink or file in the place of .megagit/local: nothing opens
		// the registry through it.
		if !opts.fix {
			return doctorReport(a, opts, []doctor.Check{checkup.LocalDir(root)})
		}
		_, moved, err := local.FixLocalDir(root)
		if err != nil {
			return fmt.Errorf("fix: %s: %w", local.MachineDir, err)
		}
		note := ""
		if rel, err := filepath.Rel(root, moved); moved != "" && err == nil {
			note = " (the file is now " + filepath.ToSlash(rel) + ")"
		}
		fmt.Fprintf(a.errOut, "megagit: fix: replaced %s, %s, with a folder%s\n", local.MachineDir, was, note)
	}
	journal := registry.JournalPending(root)
	e, err := a.open(nil) // finishes an interrupted write when no writer is alive
	if err != nil {
		return err
	}
	if opts.fix && e.Reg.InterruptedMoveToRef() {
		// An older megagit killed during `megagit layout ref` left the ref
		// layout without its commit: the move, run again, finishes it.
		fmt.Fprintf(a.errOut, "megagit: fix: finishing an interrupted `megagit layout ref`\n")
		if _, err := layoutRef(a, e); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
		if e, err = a.open(nil); err != nil { // with the new config's roots
			return err
		}
	}
	if opts.fix {
		if err := e.Repair(a.now(), a.say, adopt.Repair); err != nil {
			return fmt.Errorf("fix: %w", err)
		}
	}
	timeout := opts.timeout
	if opts.offline {
		timeout = 0
	}
	checks := checkup.Run(e, checkup.Options{Remote: timeout, Recovered: journal && !registry.JournalPending(root)})
	return doctorReport(a, opts, checks)
}

// doctorReport prints the checks and fails when one failed.
func doctorReport(a *app, opts *doctorOptions, checks []doctor.Check) error {
	failed := 0
	for _, c := range checks {
		if c.Status == doctor.Fail {
			failed++
		}
	}
	if opts.json {
		if err := printJSON(a.out, checks); err != nil {
			return err
		}
	} else {
		rows := make([][]string, len(checks))
		for i, c := range checks {
			rows[i] = []string{c.Status, c.Name, c.Detail, c.Hint}
		}
		if err := printTable(a.out, []string{"STATUS", "CHECK", "DETAIL", "HINT"}, rows); err != nil {
			return err
		}
	}
	if failed > 0 {
		return withHint(fmt.Errorf("%w: %d check(s) failed", errProblems, failed), doctorHint(checks))
	}
	return nil
}

// doctorHint is doctor's last word when checks failed: each failed check's
// hint says what repairs it; --fix is named only for the checks whose hint
// names it (it does not touch, say, the agents' settings files).
func doctorHint(checks []doctor.Check) string {
	var failed, fixed []string
	for _, c := range checks {
		if c.Status != doctor.Fail {
			continue
		}
		failed = append(failed, c.Name)
		if strings.Contains(c.Hint, "doctor --fix") {
			fixed = append(fixed, c.Name)
		}
	}
	hint := "the HINT column says how to repair each failed check (" + strings.Join(failed, ", ") + ")"
	if len(fixed) > 0 {
		hint += "; `megagit doctor --fix` repairs " + strings.Join(fixed, ", ")
	}
	return hint
}
