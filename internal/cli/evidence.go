package cli

import (
	"fmt"

	"github.com/megagit/megagit/lifecycle"
	"github.com/spf13/cobra"
)

type unarchiveOptions struct {
	app    *app
	skill  string
	reason string
	json   bool
}

// newUnarchiveCmd parses `megagit unarchive` into options and hands them to runF,
// or to unarchiveRun when runF is nil (tests pass a stub).
func newUnarchiveCmd(a *app, runF func(*unarchiveOptions) error) *cobra.Command {
	opts := &unarchiveOptions{app: a}
	cmd := &cobra.Command{
		Use:   "unarchive NAME --reason R",
		Short: "Return an archived skill to active (an explicit, logged commit)",
		Example: examples(
			`megagit unarchive flaky-tests --reason "rewritten for the new CI"`, "active again, one commit",
			`megagit unarchive flaky-tests --reason "fixed" --json`, "the same, as JSON",
		),
		Args:              exactArgs(1, "a skill NAME"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.skill = args[0]
			return orRun(runF, unarchiveRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why the skill may be used again (required)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: skill, commit, status before and after")
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
	opts.app.say(fmt.Sprintf("megagit: %s is active again", opts.skill))
	if opts.json {
		return printJSON(opts.app.out, map[string]string{"skill": opts.skill, "commit": hash.String(),
			"status_before": string(lifecycle.Archived), "status_after": string(lifecycle.Active), "reason": opts.reason})
	}
	fmt.Fprintf(opts.app.out, "%s\n", hash)
	return nil
}

type revertOptions struct {
	app  *app
	ref  string
	json bool
}

// newRevertCmd parses `megagit revert` into options and hands them to runF,
// or to revertRun when runF is nil (tests pass a stub).
func newRevertCmd(a *app, runF func(*revertOptions) error) *cobra.Command {
	opts := &revertOptions{app: a}
	cmd := &cobra.Command{
		Use:   "revert REF",
		Short: "Undo a verdict: REF is a commit hash, a prefix or a verdict id",
		Long: `revert undoes a verdict, named by REF: its commit's hash (a prefix will do)
or the verdict's id, and recomputes the skill's evidence, in one commit.`,
		Example: examples(
			"megagit revert HEAD", "undo the last verdict",
			"megagit revert 094865a", "a verdict's commit, by a hash prefix",
			"megagit revert 01M8G751AM2QW7AP4RNVFYCG5S", "a verdict, by its id",
		),
		Args: exactArgs(1, "a commit hash or verdict id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ref = args[0]
			return orRun(runF, revertRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: the commit and the verdicts it removed")
	return cmd
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
	type revertedJSON struct {
		Skill   string `json:"skill"`
		Verdict string `json:"verdict"` // or the action ("unarchive")
		ID      string `json:"id"`
	}
	out := []revertedJSON{}
	for _, en := range removed {
		what := firstNonEmpty(en.Verdict, en.Action)
		opts.app.say(fmt.Sprintf("megagit: reverted %s %s (%s)", en.Skill, what, en.ID))
		out = append(out, revertedJSON{Skill: en.Skill, Verdict: what, ID: en.ID})
	}
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"commit": hash.String(), "reverted": out})
	}
	fmt.Fprintf(opts.app.out, "%s\n", hash)
	return nil
}

type resyncOptions struct {
	app   *app
	skill string
	json  bool
}

// newResyncCmd parses `megagit resync` into options and hands them to runF,
// or to resyncRun when runF is nil (tests pass a stub).
func newResyncCmd(a *app, runF func(*resyncOptions) error) *cobra.Command {
	opts := &resyncOptions{app: a}
	cmd := &cobra.Command{
		Use:   "resync [NAME]",
		Short: "Rebuild counts, streak and status from the ledger",
		Long: `resync rebuilds every skill's counts, streak and status (or NAME's only)
from its ledger, and commits only if something changed.`,
		Example: examples(
			"megagit resync", "every skill",
			"megagit resync flaky-tests", "one skill",
		),
		Args:              maxArgs(1, "one skill NAME"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.skill = args[0]
			}
			return orRun(runF, resyncRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: the commit (\"\" when nothing changed) and each rebuilt skill")
	return cmd
}

// resyncJSON is one rebuilt skill in `megagit resync --json`.
type resyncJSON struct {
	Skill         string `json:"skill"`
	HelpfulBefore int    `json:"helpful_before"`
	HelpfulAfter  int    `json:"helpful_after"`
	HarmfulBefore int    `json:"harmful_before"`
	HarmfulAfter  int    `json:"harmful_after"`
	StatusBefore  string `json:"status_before"`
	StatusAfter   string `json:"status_after"`
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
	rebuilt := []resyncJSON{}
	for _, r := range results {
		opts.app.say(fmt.Sprintf("megagit: %s: helpful %d->%d, harmful %d->%d, status %s->%s", r.Skill,
			r.Before.HelpfulCount, r.After.HelpfulCount, r.Before.HarmfulCount, r.After.HarmfulCount, r.Before.Status, r.After.Status))
		rebuilt = append(rebuilt, resyncJSON{Skill: r.Skill, HelpfulBefore: r.Before.HelpfulCount, HelpfulAfter: r.After.HelpfulCount,
			HarmfulBefore: r.Before.HarmfulCount, HarmfulAfter: r.After.HarmfulCount,
			StatusBefore: string(r.Before.Status), StatusAfter: string(r.After.Status)})
	}
	if len(results) == 0 {
		fmt.Fprintln(opts.app.errOut, "megagit: evidence already matches the ledger; nothing to commit")
	}
	if opts.json {
		return printJSON(opts.app.out, map[string]any{"commit": commitString(hash), "rebuilt": rebuilt})
	}
	if len(results) > 0 {
		fmt.Fprintf(opts.app.out, "%s\n", hash)
	}
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

// commitHash is a commit's hash as the registry returns it.
type commitHash interface {
	IsZero() bool
	String() string
}

// commitString is a commit's hash for JSON output: "" when the command
// made no commit.
func commitString(h commitHash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
