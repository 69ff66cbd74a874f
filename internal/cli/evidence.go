package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

type unarchiveOptions struct {
	app    *app
	skill  string
	reason string
}

// newUnarchiveCmd parses `megagit unarchive` into options and hands them to runF,
// or to unarchiveRun when runF is nil (tests pass a stub).
func newUnarchiveCmd(a *app, runF func(*unarchiveOptions) error) *cobra.Command {
	opts := &unarchiveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "unarchive NAME --reason R",
		Short: "Return an archived skill to active (an explicit, logged commit)",
		Args:  exactArgs(1, "a skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.skill = args[0]
			return orRun(runF, unarchiveRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why the skill may be used again (required)")
	return cmd
}

func unarchiveRun(opts *unarchiveOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	hash, err := e.Reg.Unarchive(opts.skill, opts.reason, opts.app.now())
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.app.errOut, "megagit: %s is active again\n", opts.skill)
	fmt.Fprintf(opts.app.out, "%s\n", hash)
	return nil
}

type revertOptions struct {
	app *app
	ref string
}

// newRevertCmd parses `megagit revert` into options and hands them to runF,
// or to revertRun when runF is nil (tests pass a stub).
func newRevertCmd(a *app, runF func(*revertOptions) error) *cobra.Command {
	opts := &revertOptions{app: a}
	return &cobra.Command{
		Use:   "revert REF",
		Short: "Undo a verdict (REF = commit hash, prefix ok, or verdict id) and recompute",
		Args:  exactArgs(1, "a commit hash or verdict id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ref = args[0]
			return orRun(runF, revertRun)(opts)
		},
	}
}

func revertRun(opts *revertOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	removed, hash, err := e.Reg.Revert(opts.ref, opts.app.now())
	if err != nil {
		return err
	}
	for _, en := range removed {
		fmt.Fprintf(opts.app.errOut, "megagit: reverted %s %s (%s)\n", en.Skill, firstNonEmpty(en.Verdict, en.Action), en.ID)
	}
	fmt.Fprintf(opts.app.out, "%s\n", hash)
	return nil
}

type resyncOptions struct {
	app   *app
	skill string
}

// newResyncCmd parses `megagit resync` into options and hands them to runF,
// or to resyncRun when runF is nil (tests pass a stub).
func newResyncCmd(a *app, runF func(*resyncOptions) error) *cobra.Command {
	opts := &resyncOptions{app: a}
	return &cobra.Command{
		Use:   "resync [NAME]",
		Short: "Rebuild counts, streak and status from the ledger; commit only if something changed",
		Args:  maxArgs(1, "one skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.skill = args[0]
			}
			return orRun(runF, resyncRun)(opts)
		},
	}
}

func resyncRun(opts *resyncOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	results, hash, err := e.Reg.Resync(opts.skill)
	if err != nil {
		return err
	}
	if len(results) == 0 {
		fmt.Fprintln(opts.app.errOut, "megagit: evidence already matches the ledger; nothing to commit")
		return nil
	}
	for _, r := range results {
		fmt.Fprintf(opts.app.errOut, "megagit: %s: helpful %d->%d, harmful %d->%d, status %s->%s\n", r.Skill,
			r.Before.HelpfulCount, r.After.HelpfulCount, r.Before.HarmfulCount, r.After.HarmfulCount, r.Before.Status, r.After.Status)
	}
	fmt.Fprintf(opts.app.out, "%s\n", hash)
	return nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
