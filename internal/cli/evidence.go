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

func newUnarchiveCmd(a *app) *cobra.Command {
	opts := &unarchiveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "unarchive NAME --reason R",
		Short: "Return an archived skill to active (an explicit, logged commit)",
		Args:  exactArgs(1, "a skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.skill = args[0]
			return unarchiveRun(opts)
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
	hash, err := e.reg.Unarchive(opts.skill, opts.reason, opts.app.now())
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

func newRevertCmd(a *app) *cobra.Command {
	opts := &revertOptions{app: a}
	return &cobra.Command{
		Use:   "revert REF",
		Short: "Undo a verdict (REF = commit hash, prefix ok, or verdict id) and recompute",
		Args:  exactArgs(1, "a commit hash or verdict id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ref = args[0]
			return revertRun(opts)
		},
	}
}

func revertRun(opts *revertOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	removed, hash, err := e.reg.Revert(opts.ref, opts.app.now())
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

func newResyncCmd(a *app) *cobra.Command {
	opts := &resyncOptions{app: a}
	return &cobra.Command{
		Use:   "resync [NAME]",
		Short: "Rebuild counts, streak and status from the ledger; commit only if something changed",
		Args:  maxArgs(1, "one skill NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.skill = args[0]
			}
			return resyncRun(opts)
		},
	}
}

func resyncRun(opts *resyncOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	results, hash, err := e.reg.Resync(opts.skill)
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
