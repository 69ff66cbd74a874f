package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

type lintOptions struct {
	app  *app
	json bool
}

// newLintCmd parses `megagit lint` into options and hands them to runF,
// or to lintRun when runF is nil (tests pass a stub).
func newLintCmd(a *app, runF func(*lintOptions) error) *cobra.Command {
	opts := &lintOptions{app: a}
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Report every problem in every skill routing reads",
		Long: `lint reports every problem in every skill routing reads (the registry's,
the agents' folders', plugins' and the team's), each as file, line, field
and message. Warnings, which leave the exit code 0, include two skills that
say the same thing (the model's cosine of their names and descriptions at
lint.duplicate_cosine or the model's measured value, or nearly the same
words) and a skill shadowed by another of its name in a higher source,
each naming both files and the command that resolves it.`,
		Example: examples(
			"megagit lint", "every problem; exit 10 on an error (not a warning)",
			"megagit lint --json", "as JSON",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, lintRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func lintRun(opts *lintOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	problems, checked := e.Lint()
	errorsFound := 0
	for _, p := range problems {
		if p.Severity != "warning" {
			errorsFound++
		}
	}
	if opts.json {
		if err := printJSON(opts.app.out, problems); err != nil {
			return err
		}
	} else if len(problems) > 0 {
		rows := make([][]string, 0, len(problems))
		for _, p := range problems {
			rows = append(rows, []string{p.File, strconv.Itoa(p.Line), p.Field, p.Severity, p.Message})
		}
		if err := printTable(opts.app.out, []string{"FILE", "LINE", "FIELD", "SEVERITY", "MESSAGE"}, rows); err != nil {
			return err
		}
	}
	if errorsFound > 0 {
		return fmt.Errorf("%w: %d error(s) in skills", errProblems, errorsFound)
	}
	fmt.Fprintf(opts.app.errOut, "megagit: %d skill(s) checked, no errors\n", checked)
	return nil
}
