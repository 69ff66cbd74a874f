package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type verdictOptions struct {
	app     *app
	skill   string
	verdict string
	reason  string
	context string
	session string
	json    bool
}

// newVerdictCmd parses `megagit verdict` into options and hands them to
// runF, or to verdictRun when runF is nil (tests pass a stub).
func newVerdictCmd(a *app, runF func(*verdictOptions) error) *cobra.Command {
	opts := &verdictOptions{app: a}
	cmd := &cobra.Command{
		Use:   "verdict NAME HELPFUL|HARMFUL|NEUTRAL",
		Short: "Record a verdict: a ledger line, the skill's evidence and one commit",
		Example: examples(
			`megagit verdict stripe-webhooks HELPFUL --reason "caught the bug"`, "one commit",
			`megagit verdict flaky-tests HARMFUL --context "fails only in CI"`, "and the prompt it served",
			"megagit verdict flaky-tests NEUTRAL --json", "the new evidence as JSON",
		),
		Args:              exactArgs(2, "a skill NAME and a verdict (HELPFUL, HARMFUL or NEUTRAL)"),
		ValidArgsFunction: completeSkillArg(a, 0, string(lifecycle.Helpful), string(lifecycle.Harmful), string(lifecycle.Neutral)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.skill, opts.verdict = args[0], args[1]
			return orRun(runF, verdictRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.reason, "reason", "", "why (kept in the ledger and the commit message; one line, at most 500 characters)")
	cmd.Flags().StringVar(&opts.context, "context", "", "the prompt or task the skill was used for (kept as evidence; one line, at most 4096 characters)")
	cmd.Flags().StringVar(&opts.session, "session", "", "agent session id")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: skill, verdict, id, commit, status before and after, counts")
	return cmd
}

func verdictRun(opts *verdictOptions) error {
	v, err := lifecycle.ParseVerdict(opts.verdict)
	if err != nil {
		return fmt.Errorf("%w: %v", errkind.ErrInvalid, err)
	}
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	in, notes := registry.CleanInput(registry.VerdictInput{
		Skill: opts.skill, Verdict: v, Reason: opts.reason, Context: opts.context, Session: opts.session,
	})
	for _, n := range notes {
		opts.app.say(fmt.Sprintf("megagit: warning: %s", n))
	}
	recorded, err := e.RecordVerdicts([]registry.VerdictInput{in}, opts.app.now())
	if err != nil {
		return err
	}
	for _, rec := range recorded {
		for _, ap := range rec.Applied {
			reportApplied(opts.app.errOut, ap)
		}
		reportWhere(opts.app.errOut, e, rec)
		if opts.json && len(recorded) == 1 && len(rec.Applied) == 1 {
			return printJSON(opts.app.out, toVerdictJSON(rec.Applied[0], rec.Hash.String()))
		}
		fmt.Fprintf(opts.app.out, "%s\n", rec.Hash)
	}
	return nil
}

// verdictJSON is what `megagit verdict --json` prints: the recorded
// verdict, its commit and what it did to the skill's evidence.
type verdictJSON struct {
	Skill              string  `json:"skill"`
	Verdict            string  `json:"verdict"`
	ID                 string  `json:"id"`
	Commit             string  `json:"commit"`
	StatusBefore       string  `json:"status_before"`
	StatusAfter        string  `json:"status_after"`
	HelpfulCount       int     `json:"helpful_count"`
	HarmfulCount       int     `json:"harmful_count"`
	ConsecutiveHarmful int     `json:"consecutive_harmful"`
	TrajectoryWeight   float64 `json:"trajectory_weight"`
}

func toVerdictJSON(ap registry.Applied, commit string) verdictJSON {
	ev := ap.After
	return verdictJSON{Skill: ap.Entry.Skill, Verdict: ap.Entry.Verdict, ID: ap.Entry.ID, Commit: commit,
		StatusBefore: string(ap.Before), StatusAfter: string(ev.Status),
		HelpfulCount: ev.HelpfulCount, HarmfulCount: ev.HarmfulCount, ConsecutiveHarmful: ev.ConsecutiveHarmful,
		TrajectoryWeight: ev.TrajectoryWeight}
}

// reportWhere says where verdicts on a skill of another source went.
func reportWhere(w io.Writer, e *workspace.Workspace, rec workspace.Recorded) {
	for _, key := range rec.Native {
		name, _, _ := strings.Cut(key, "@")
		fmt.Fprintf(w, "megagit: %s is read-only (a skill outside any registry): its evidence is in %s, %s\n",
			name, rec.Reg.Root(), registry.NativeLedgerPath(key))
	}
	if len(rec.Native) == 0 && rec.Reg != e.Reg {
		fmt.Fprintf(w, "megagit: recorded in the %s registry %s\n", rec.Kind, rec.Reg.Root())
	}
}

func reportApplied(w io.Writer, ap registry.Applied) {
	ev := ap.After
	fmt.Fprintf(w, "megagit: %s %s: helpful %d, harmful %d, streak %d, status %s",
		ap.Entry.Skill, ap.Entry.Verdict, ev.HelpfulCount, ev.HarmfulCount, ev.ConsecutiveHarmful, ev.Status)
	if ap.Before != ev.Status {
		fmt.Fprintf(w, " (was %s)", ap.Before)
	}
	fmt.Fprintln(w)
}
