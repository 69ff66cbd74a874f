package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/megagit/megagit/learn"
	"github.com/spf13/cobra"
)

type decisionsOptions struct {
	app  *app
	json bool
	n    int
}

// newDecisionsCmd parses `megagit decisions` into options and hands them to
// runF, or to decisionsRun when runF is nil (tests pass a stub).
func newDecisionsCmd(a *app, runF func(*decisionsOptions) error) *cobra.Command {
	opts := &decisionsOptions{app: a}
	cmd := &cobra.Command{
		Use:   "decisions [--json] [-n N]",
		Short: "Show the prompt hook's decision log and the verdicts that followed",
		Long: `decisions shows the prompt hook's local decision log, the last N decisions
(the skills each prompt got, or none), with the verdicts each decision's
skills got later in the same session.`,
		Example: examples(
			"megagit decisions", "the last 20 decisions",
			"megagit decisions -n 0", "every decision",
			"megagit decisions --json", "as JSON",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, decisionsRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().IntVarP(&opts.n, "number", "n", 20, "show the last N decisions (0 = all)")
	return cmd
}

func decisionsRun(opts *decisionsOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	l, err := e.DecisionLog()
	if err != nil {
		return err
	}
	ds := l.Decisions
	if opts.n > 0 && len(ds) > opts.n {
		ds = ds[len(ds)-opts.n:]
	}
	out := learn.WithVerdicts(ds, l.Ledgers)
	if opts.json {
		return printJSON(opts.app.out, out)
	}
	rows := make([][]string, len(out))
	for i, d := range out {
		var skills []string
		for _, s := range d.Skills {
			cell := s.Name
			if !s.New {
				cell += "(loaded)"
			}
			if v := d.Verdicts[s.Name]; len(v) > 0 {
				cell += "=" + strings.Join(v, "+")
			}
			skills = append(skills, cell)
		}
		terms := strings.Join(d.Terms, " ")
		if d.Shadow {
			terms = "[shadow] " + terms
		}
		rows[i] = []string{strings.Replace(d.Time[:min(19, len(d.Time))], "T", " ", 1), clipID(d.Session),
			strconv.Itoa(d.K), d.Reason, strings.Join(skills, ", "), fmt.Sprintf("%.1f", d.LatencyMS), terms}
	}
	return printTable(opts.app.out, []string{"TIME", "SESSION", "K", "REASON", "SKILLS", "MS", "TERMS"}, rows)
}

func clipID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
