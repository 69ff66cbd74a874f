package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/learn"
	"github.com/megagit/megagit/local"
	"github.com/spf13/cobra"
)

type statsOptions struct {
	app   *app
	since string
	skill string
	json  bool
	html  string
}

// newStatsCmd parses `megagit stats` into options and hands them to runF,
// or to statsRun when runF is nil (tests pass a stub).
func newStatsCmd(a *app, runF func(*statsOptions) error) *cobra.Command {
	opts := &statsOptions{app: a}
	cmd := &cobra.Command{
		Use:   "stats [--since D] [--skill S] [--json] [--html FILE]",
		Short: "Show how each skill was used: injections, verdicts, dead weight",
		Long: "Per skill, from the prompt hook's decision log and the ledgers: how often it was injected and\n" +
			"when last, its explicit verdicts and implicit outcomes, its helpful rate, whether it was\n" +
			"injected and never used (silence) or never injected at all (dead weight), and the skills\n" +
			"most often injected together. --html writes one self-contained page with charts.",
		Example: examples(
			"megagit stats", "every skill, over the whole log",
			"megagit stats --since 30d", "the last 30 days",
			"megagit stats --skill flaky-tests", "one skill, and the pairs it is in",
			"megagit stats --html stats.html", "also a page of charts",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, statsRun)(opts)
		},
	}
	cmd.Flags().StringVar(&opts.since, "since", "", "only the window since `D`: a date (2026-05-01), a time (RFC 3339) or an age (30d, 2w, 12h)")
	cmd.Flags().StringVar(&opts.skill, "skill", "", "only the skill `S` (and the pairs it is in)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().StringVar(&opts.html, "html", "", "also write a self-contained HTML report with charts to `FILE`")
	return cmd
}

// parseSince reads --since: a date, an RFC 3339 time, or an age before now
// in days (d), weeks (w) or any Go duration (12h).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			if v, err := strconv.ParseFloat(n, 64); err == nil && v >= 0 {
				return now.Add(-time.Duration(v * float64(unit))), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, usageError{fmt.Errorf("--since %q: want a date (2026-05-01), a time (RFC 3339) or an age (30d, 2w, 12h)", s)}
}

// statsJSON is the stable JSON shape of `megagit stats`.
type statsJSON struct {
	Since string `json:"since,omitempty"`
	learn.Stats
	NeverInjected []string `json:"never_injected"`
	Unused        []string `json:"unused"`
	// NotOffered are the skills megagit never injects (the user's only,
	// turned off, denied): never injected, and not dead weight for it.
	NotOffered []string `json:"not_offered"`
	// HeldBack are the skills megagit holds back (a high audit finding,
	// files that differ from the lock) until the user allows them.
	HeldBack []string `json:"held_back"`
}

func statsRun(opts *statsOptions) error {
	since, err := parseSince(opts.since, opts.app.now())
	if err != nil {
		return err
	}
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	c, err := e.Catalog()
	if err != nil {
		return err
	}
	opts.app.warnProblems(c.Problems)
	ds, err := e.Decisions()
	if err != nil {
		return err
	}
	skills := make([]learn.StatsSkill, 0, len(c.Skills))
	offered, held := map[string]bool{}, map[string]bool{}
	for _, s := range c.Skills {
		offered[s.Name], held[s.Name] = s.Offered(), s.Untrusted != ""
		skills = append(skills, learn.StatsSkill{Name: s.Name, Ledger: s.Ledger, SilentStreak: s.Evidence.SilentStreak, Disabled: s.Evidence.Disabled != ""})
	}
	st := learn.ComputeStats(skills, ds, since)
	if opts.skill != "" {
		if c.Lookup(opts.skill) == nil && len(st.Only(opts.skill).Skills) == 0 {
			return fmt.Errorf("%w: skill %q: no source has it and the decision log never names it", errkind.ErrInvalid, opts.skill)
		}
		st = st.Only(opts.skill)
	}
	j := statsJSON{Stats: st, NeverInjected: []string{}, Unused: []string{}, NotOffered: []string{}, HeldBack: []string{}}
	if !since.IsZero() {
		j.Since = since.UTC().Format(time.RFC3339)
	}
	for _, s := range st.Skills {
		if held[s.Name] { // held back is why it is not injected: said once
			j.HeldBack = append(j.HeldBack, s.Name)
			continue
		}
		switch {
		case s.NeverInjected && !offered[s.Name] && c.Lookup(s.Name) != nil:
			j.NotOffered = append(j.NotOffered, s.Name)
		case s.NeverInjected:
			j.NeverInjected = append(j.NeverInjected, s.Name)
		}
		if s.Unused {
			j.Unused = append(j.Unused, s.Name)
		}
	}
	if opts.html != "" {
		page, err := statsHTML(j, opts.app.now())
		if err != nil {
			return err
		}
		if err := local.WriteFileAtomic(opts.html, page, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(opts.app.errOut, "megagit: wrote %s\n", shown(opts.html))
	}
	if opts.json {
		return printJSON(opts.app.out, j)
	}
	return printStats(opts, j)
}

func printStats(opts *statsOptions, j statsJSON) error {
	w := opts.app.out
	fmt.Fprintf(opts.app.errOut, "megagit: %s %s, %d injected a skill\n", plural(j.Decisions, "decision", "decisions"), statsWindow(j), j.Injecting)
	most := 0
	for _, s := range j.Skills {
		most = max(most, s.Injected)
	}
	rows := make([][]string, 0, len(j.Skills))
	for _, s := range j.Skills {
		last, rate := "-", "-"
		if s.LastInjected != "" {
			last = s.LastInjected[:10]
		}
		if s.HelpfulRate != nil {
			rate = fmt.Sprintf("%.0f%%", *s.HelpfulRate*100)
		}
		name := s.Name
		if s.Disabled {
			name += " (disabled)"
		}
		rows = append(rows, []string{name, strconv.Itoa(s.Injected), bar(s.Injected, most, 20), last,
			strconv.Itoa(s.Helpful), strconv.Itoa(s.Harmful), strconv.Itoa(s.Neutral),
			fmt.Sprintf("+%d/-%d", s.Positive, s.Negative), strconv.Itoa(s.Silent), rate})
	}
	if err := printTable(w, []string{"SKILL", "INJECTED", "BAR", "LAST", "HELPFUL", "HARMFUL", "NEUTRAL", "OUTCOMES", "SILENT", "HELPFUL%"}, rows); err != nil {
		return err
	}
	if len(j.Unused) > 0 {
		fmt.Fprintf(w, "\ninjected, never used: %s\n", shown(strings.Join(j.Unused, ", ")))
	}
	if len(j.NeverInjected) > 0 {
		fmt.Fprintf(w, "\nnever injected (dead weight): %s\n", shown(strings.Join(j.NeverInjected, ", ")))
	}
	if len(j.NotOffered) > 0 {
		fmt.Fprintf(w, "\nnever offered to the model (yours to run, turned off or denied; `megagit skill show NAME` says which): %s\n", shown(strings.Join(j.NotOffered, ", ")))
	}
	if len(j.HeldBack) > 0 {
		fmt.Fprintf(w, "\nheld back (a high audit finding, or files that differ from the lock; `megagit skill show NAME` says why and how to allow it): %s\n", shown(strings.Join(j.HeldBack, ", ")))
	}
	if len(j.Pairs) > 0 {
		fmt.Fprintf(w, "\ninjected together:\n")
		for _, p := range j.Pairs {
			fmt.Fprintf(w, "  %s + %s\t%d\n", shown(p.A), shown(p.B), p.Count)
		}
	}
	return nil
}

// bar is n of most as a bar of at most width cells, in eighths of a cell.
func bar(n, most, width int) string {
	if n <= 0 || most <= 0 {
		return ""
	}
	eighths := int(math.Round(float64(n) / float64(most) * float64(width*8)))
	eighths = max(eighths, 1)
	partial := []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}
	return strings.Repeat("█", eighths/8) + partial[eighths%8]
}
