package cli

import (
	"time"

	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type logOptions struct {
	app   *app
	skill string
	limit int
	json  bool
}

// newLogCmd parses `megagit log` into options and hands them to runF,
// or to logRun when runF is nil (tests pass a stub).
func newLogCmd(a *app, runF func(*logOptions) error) *cobra.Command {
	opts := &logOptions{app: a}
	cmd := &cobra.Command{
		Use:   "log [NAME]",
		Short: "Show the verdict history: time, commit, skill, verdict, reason",
		Long: `log shows the verdict history from git, newest first (of every skill, or
NAME's): time, commit, skill, verdict, status change and reason.`,
		Example: examples(
			"megagit log", "every verdict, newest first",
			"megagit log stripe-webhooks -n 5", "one skill's last 5 events",
			"megagit log --json", "as JSON",
		),
		Args:              maxArgs(1, "one skill NAME"),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.skill = args[0]
			}
			return orRun(runF, logRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().IntVarP(&opts.limit, "max-count", "n", 0, "show at most `N` events")
	return cmd
}

func logRun(opts *logOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	if opts.skill != "" {
		if _, err := e.Reg.Skill(opts.skill); err != nil {
			return err
		}
	}
	entries, err := e.Reg.Log(opts.skill, opts.limit)
	if err != nil {
		return err
	}
	if opts.json {
		if entries == nil {
			return printJSON(opts.app.out, []any{})
		}
		return printJSON(opts.app.out, entries)
	}
	rows := make([][]string, 0, len(entries))
	for _, en := range entries {
		what := en.Verdict
		switch {
		case en.Kind == "outcome" && en.Outcome != nil:
			what = "outcome " + registry.OutcomeWord(*en.Outcome, en.Reason)
		case en.Kind != "verdict":
			what = en.Kind
		}
		rows = append(rows, []string{en.Time.Local().Format(time.DateTime), en.Commit[:12], en.Skill, what, en.Status, en.Reason})
	}
	return printTable(opts.app.out, []string{"TIME", "COMMIT", "SKILL", "VERDICT", "STATUS", "REASON"}, rows)
}
