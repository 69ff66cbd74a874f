package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/learn"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type tuneOptions struct {
	app       *app
	apply     bool
	json      bool
	gate      string // --gate FILE
	nullShare float64
}

// newTuneCmd parses `megagit tune` into options and hands them to runF, or
// to tuneRun when runF is nil (tests pass a stub).
func newTuneCmd(a *app, runF func(*tuneOptions) error) *cobra.Command {
	opts := &tuneOptions{app: a}
	cmd := &cobra.Command{
		Use:   "tune [--apply]",
		Short: "Re-fit the dynamic-K thresholds from the decision log and its verdicts",
		Long: `tune replays every logged prompt-hook decision under other dynamic-K thresholds
and scores each set against what the session's verdicts say:

  a decision whose emitted skills got a HELPFUL tag should be kept, with K
  reaching the last helpful skill; one whose skills were all judged HARMFUL or
  NEUTRAL, or were never reported although the stop hook read the session,
  should have abstained. Decisions that abstained carry no verdicts and only
  count in the abstain/keep totals.

It proposes new thresholds only with at least 30 labelled decisions and a
strict gain in agreement; --apply writes them to .megagit/config.yaml as one
commit (dynamic_k.abs_floor, abstain_z_top1, abstain_z_ent, ambig_z_ent,
very_ambig_z_ent).

--gate FILE instead re-fits the abstention gate (whether anything fits a
prompt) from the same labels: a decision with a HELPFUL skill is a prompt
something fits, one whose skills were judged otherwise or went unused is
one nothing fits. Decisions that abstained have no verdicts to learn from.
It needs at least 10 of each and writes the gate to FILE; set
dynamic_k.gate: FILE in .megagit/config.yaml to route with it.`,
		Example: examples(
			"megagit tune", "propose new thresholds, writing nothing",
			"megagit tune --apply", "commit them to .megagit/config.yaml",
			"megagit tune --gate gate.json", "re-fit the abstention gate into gate.json",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.gate != "" && opts.apply {
				return usageError{errors.New("--gate writes a gate file; it cannot be combined with --apply")}
			}
			if !(opts.nullShare > 0 && opts.nullShare < 1) {
				return usageError{fmt.Errorf("--null-share %v: want a share strictly between 0 and 1", opts.nullShare)}
			}
			return orRun(runF, tuneRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.apply, "apply", false, "write the proposed thresholds to .megagit/config.yaml (one commit)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().StringVar(&opts.gate, "gate", "", "re-fit the abstention gate from the labelled decisions and write it to `FILE`")
	cmd.Flags().Float64Var(&opts.nullShare, "null-share", ranker.DefaultGateFit().NullShare, "with --gate: the weight of decisions that should have abstained")
	return cmd
}

// minGateSamples is how many labelled decisions of each kind tune --gate
// needs.
const minGateSamples = 10

// tuneGateRun fits the abstention gate to the labelled decisions.
func tuneGateRun(opts *tuneOptions, l *workspace.DecisionLog) error {
	samples := learn.GateSamples(l.Decisions, l.Ledgers, l.Stopped)
	fits := 0
	for _, s := range samples {
		if s.Fits {
			fits++
		}
	}
	if fits < minGateSamples || len(samples)-fits < minGateSamples {
		return fmt.Errorf("%w: tune --gate needs at least %d decisions whose first skill was helpful and %d unhelpful ones, labelled and with signals; the log has %d and %d",
			errkind.ErrInvalid, minGateSamples, minGateSamples, fits, len(samples)-fits)
	}
	fit := ranker.DefaultGateFit()
	fit.NullShare = opts.nullShare
	g, err := ranker.FitGate(samples, fit)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	path := opts.gate
	if !filepath.IsAbs(path) {
		path = filepath.Join(opts.app.workDir(), path)
	}
	if err := local.WriteFileAtomic(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	if opts.json {
		return printJSON(opts.app.out, struct {
			Decisions int          `json:"decisions"`
			Helpful   int          `json:"helpful"`
			Unhelpful int          `json:"unhelpful"`
			Gate      *ranker.Gate `json:"gate"`
			File      string       `json:"file"`
		}{len(l.Decisions), fits, len(samples) - fits, g, opts.gate})
	}
	fmt.Fprintf(opts.app.out, "decisions %d, labelled %d (%d helpful, %d unused or harmful)\n", len(l.Decisions), len(samples), fits, len(samples)-fits)
	opts.app.say(fmt.Sprintf("megagit: wrote the gate to %s; set dynamic_k.gate: %s in .megagit/config.yaml to route with it", opts.gate, opts.gate))
	return nil
}

// tuneJSON is `tune --json`'s stable shape.
type tuneJSON struct {
	Decisions  int `json:"decisions"`
	Replayable int `json:"replayable"`
	ranker.Tuning
	Commit string `json:"commit,omitempty"`
}

func tuneRun(opts *tuneOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	l, err := e.DecisionLog()
	if err != nil {
		return err
	}
	if opts.gate != "" {
		return tuneGateRun(opts, l)
	}
	cases := learn.TuneCases(l.Decisions, l.Ledgers, l.Stopped)
	res := tuneJSON{Decisions: len(l.Decisions), Replayable: len(cases),
		Tuning: ranker.Tune(cases, workspace.RankerConfig(e.Cfg).DynamicK, e.Cfg.Route.TopK)}
	if opts.apply && res.Changed {
		old, err := e.Reg.ReadConfigFile()
		if err != nil {
			return err
		}
		t := res.Proposed.Thresholds
		data, err := config.Set(old, map[string]any{
			"dynamic_k.abs_floor": t.AbsFloor, "dynamic_k.abstain_z_top1": t.AbstainZTop1,
			"dynamic_k.abstain_z_ent": t.AbstainZEnt, "dynamic_k.ambig_z_ent": t.AmbigZEnt,
			"dynamic_k.very_ambig_z_ent": t.VeryAmbigZEnt,
		})
		if err != nil {
			return err
		}
		hash, err := e.Reg.CommitConfig(data, fmt.Sprintf("tune dynamic K (%s)", res.Why))
		if err != nil {
			return err
		}
		res.Commit = hash.String()
	}
	if opts.json {
		return printJSON(opts.app.out, res)
	}
	printTune(opts, res)
	return nil
}

func printTune(opts *tuneOptions, r tuneJSON) {
	w := opts.app.out
	fmt.Fprintf(w, "decisions %d, replayable %d, labelled %d (%d helpful, %d unused or harmful)\n\n",
		r.Decisions, r.Replayable, r.Labeled, r.Helpful, r.Unhelpful)
	c, p := r.Current.Thresholds, r.Proposed.Thresholds
	rows := [][]string{
		{"abs_floor", f3(c.AbsFloor), f3(p.AbsFloor)},
		{"abstain_z_top1", f3(c.AbstainZTop1), f3(p.AbstainZTop1)},
		{"abstain_z_ent", f3(c.AbstainZEnt), f3(p.AbstainZEnt)},
		{"ambig_z_ent", f3(c.AmbigZEnt), f3(p.AmbigZEnt)},
		{"very_ambig_z_ent", f3(c.VeryAmbigZEnt), f3(p.VeryAmbigZEnt)},
		{"abstain (of replayable)", fmt.Sprint(r.Current.Abstain), fmt.Sprint(r.Proposed.Abstain)},
		{"keep (of replayable)", fmt.Sprint(r.Current.Keep), fmt.Sprint(r.Proposed.Keep)},
		{"agreement (of labelled)", fmt.Sprint(r.Current.Agreement), fmt.Sprint(r.Proposed.Agreement)},
	}
	_ = printTable(w, []string{"THRESHOLD", "CURRENT", "PROPOSED"}, rows)
	switch {
	case !r.Changed:
		opts.app.say(fmt.Sprintf("megagit: thresholds unchanged: %s", r.Why))
	case r.Commit != "":
		opts.app.say(fmt.Sprintf("megagit: applied: %s (commit %s)", r.Why, r.Commit[:12]))
	default:
		opts.app.say(fmt.Sprintf("megagit: %s; run `megagit tune --apply` to write them", r.Why))
	}
}

func f3(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", x), "0"), ".")
}
