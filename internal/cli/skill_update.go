package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/spf13/cobra"
)

// errUpdatesAvailable: `skill update --check` found skills whose source
// moved on (exit 11, for CI): an answer, printed as one, not an error.
var errUpdatesAvailable = errors.New("updates available")

type skillUpdateOptions struct {
	app            *app
	names          []string
	check          bool
	force          bool
	allowUnrelated bool
	allow          []string
	json           bool
}

// newSkillUpdateCmd parses `megagit skill update` into options and hands
// them to runF, or to skillUpdateRun when runF is nil (tests pass a stub).
func newSkillUpdateCmd(a *app, runF func(*skillUpdateOptions) error) *cobra.Command {
	opts := &skillUpdateOptions{app: a}
	cmd := &cobra.Command{
		Use:   "update [NAME...] [--check] [--force] [--allow-unrelated]",
		Short: "Update installed skills from their sources, keeping their evidence",
		Long: `Fetch the source of each installed skill (every one in .megagit/skills.lock,
or the NAMEs given) at the ref it was installed from, show what changed
upstream (files added, removed, changed; the description; megagit audit's
findings in the new files) and what changed here (its files against the
lock's hashes), and apply the upstream changes in one commit. The skill's
evidence stays: its ledger, and mega_meta in its SKILL.md. A high audit
finding refuses the update unless --allow RULE. A skill edited here since it
was installed is never overwritten without --force (nothing is written; its
edited files are named, with the lines the update would replace); with
--force and nothing new upstream, its installed files are put back.

Every skill is checked: one that left its source (its folder is gone from
it), whose source cannot be reached, or whose source's new commit does not
descend from the installed one (a force-push, another history; refused
unless --allow-unrelated) is named with what to do, the others are still
checked and updated, and the exit code says something was wrong.

--check only reports, and exits 11 when an update is available.`,
		Example: examples(
			"megagit skill update", "every installed skill",
			"megagit skill update --check", "report only; exit 11 when updates are available",
			"megagit skill update pdf-forms --force", "overwrite your edits (its evidence stays)",
		),
		ValidArgsFunction: completeSkillArg(a, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.names = args
			if opts.check && opts.force {
				return usageError{fmt.Errorf("%s: --check writes nothing; drop --force", cmd.CommandPath())}
			}
			if err := audit.CheckAllow(opts.allow); err != nil {
				return usageError{err}
			}
			return orRun(runF, skillUpdateRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.check, "check", false, "report only; exit 11 when an update is available (for CI)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "overwrite skills edited here since they were installed (their evidence stays)")
	cmd.Flags().BoolVar(&opts.allowUnrelated, "allow-unrelated", false, "update skills whose source's new commit does not descend from the installed one (a force-push or another history; refused otherwise)")
	cmd.Flags().StringArrayVar(&opts.allow, "allow", nil, "update skills whose high audit findings are of this `RULE` all the same (repeatable; `megagit audit --help` lists the rules)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: skills (name, source, ref, from, to, status, upstream, local, description, audit, problem), commit")
	return cmd
}

// updateProblems are the skills an update could not check or update; the
// exit code is theirs.
type updateProblems []install.Problem

func (p updateProblems) Error() string {
	if len(p) == 1 {
		return p[0].Err.Error()
	}
	parts := make([]string, len(p))
	for i, q := range p {
		parts[i] = q.Err.Error()
	}
	return fmt.Sprintf("%d problem(s): %s", len(p), strings.Join(parts, "; "))
}

func (p updateProblems) Unwrap() []error {
	out := make([]error, len(p))
	for i, q := range p {
		out[i] = q.Err
	}
	return out
}

// asError is p with each problem's hint, or nil for none.
func (p updateProblems) asError() error {
	if len(p) == 0 {
		return nil
	}
	var hints []string
	for _, q := range p {
		if q.Hint != "" {
			hints = append(hints, q.Hint)
		}
	}
	return withHint(p, hints...)
}

func skillUpdateRun(opts *skillUpdateOptions) error {
	a := opts.app
	e, err := a.open(nil)
	if err != nil {
		return err
	}
	lock, err := e.Reg.ReadLock()
	if err != nil {
		return err
	}
	useNetwork(e.Cfg)
	names := opts.names
	if len(names) == 0 {
		names = lock.Names()
		if len(names) == 0 {
			fmt.Fprintln(a.errOut, "megagit: no installed skills (megagit skill install SOURCE installs some)")
			if opts.json {
				return printJSON(a.out, map[string]any{"skills": []install.Report{}, "commit": ""})
			}
			return nil
		}
	}
	report, found, err := install.PlanUpdates(context.Background(), e.Reg, lock, names, install.UpdateOptions{
		Force: opts.force, AllowUnrelated: opts.allowUnrelated,
		Fetching: func(source string) { fmt.Fprintf(a.errOut, "megagit: fetching %s\n", shown(gitauth.Redact(source))) },
	})
	if err != nil {
		return err
	}
	problems := netProblems(found)
	pending, edited, items := install.Updatable(report)
	if !opts.json {
		printUpdates(a.out, report)
	}
	if opts.check || len(edited) > 0 || len(items) == 0 {
		if opts.json {
			if err := printJSON(a.out, map[string]any{"skills": report, "commit": ""}); err != nil {
				return err
			}
		}
		if len(pending) > 0 && (opts.check || len(edited) == 0) {
			a.say(fmt.Sprintf("megagit: %d of %d skill(s) can be updated: %s", len(pending), len(report), strings.Join(pending, ", ")))
		}
		switch {
		case len(edited) > 0 && !opts.check:
			err := fmt.Errorf("%w: nothing updated: %s", errkind.ErrLocalEdits, strings.Join(edited, ", "))
			if len(problems) > 0 {
				err = fmt.Errorf("%w; and %w", err, problems)
			}
			return withHint(err, "`megagit skill update --force NAME` overwrites a skill's local edits (its evidence stays); name the others to update only them")
		case len(problems) > 0:
			return problems.asError()
		case len(pending) > 0:
			return resultError{errUpdatesAvailable}
		}
		fmt.Fprintf(a.errOut, "megagit: %d skill(s) up to date\n", len(report))
		return nil
	}
	var sets []auditedSet
	for _, u := range report {
		if u.Item != nil {
			sets = append(sets, auditedSet{findings: u.Audit, name: inSource(u.Item.Entry.Path)})
		}
	}
	if err := refuseFindings(a, sets, opts.allow, "updated"); err != nil {
		return err
	}
	done, warnings, hash, err := install.Skills(e.Reg, items, install.Options{Force: opts.force, Action: "update"})
	if err != nil {
		return withHint(err, installHint(err)...)
	}
	printWarnings(a, warnings)
	var updated []string
	for _, d := range done {
		if !d.Unchanged {
			updated = append(updated, d.Name)
		}
	}
	commit := ""
	if !hash.IsZero() {
		commit = hash.String()
		a.say(fmt.Sprintf("megagit: updated %d skill(s): %s (commit %s)", len(updated), strings.Join(updated, ", "), hash.String()[:12]))
	}
	if opts.json {
		if err := printJSON(a.out, map[string]any{"skills": report, "commit": commit}); err != nil {
			return err
		}
	}
	return problems.asError()
}

// printUpdates writes the per-skill report: a line per skill, then what
// changed upstream and here, or what kept it from being checked.
func printUpdates(w io.Writer, report []install.Report) {
	for _, u := range report {
		from, to := install.Short(u.From), install.Short(u.To)
		ref := u.Ref
		if ref == "" {
			ref = "default branch"
		}
		switch u.Status {
		case install.StatusUpToDate:
			fmt.Fprintf(w, "%s: up to date (%s, %s at %s)\n", shown(u.Name), shown(u.Source), shown(ref), to)
			continue
		case install.StatusMissing, install.StatusUnreachable, install.StatusLeft:
			fmt.Fprintf(w, "%s: %s (%s, %s)\n", shown(u.Name), u.Status, shown(u.Source), shown(ref))
			fmt.Fprintf(w, "  %s\n", shown(u.Problem))
			continue
		case install.StatusLocalOnly:
			fmt.Fprintf(w, "%s: %s (%s, %s at %s)\n", shown(u.Name), u.Status, shown(u.Source), shown(ref), to)
		default:
			fmt.Fprintf(w, "%s: %s %s -> %s (%s, %s)\n", shown(u.Name), u.Status, from, to, shown(u.Source), shown(ref))
		}
		if u.Problem != "" {
			fmt.Fprintf(w, "  %s\n", shown(u.Problem))
		}
		printDiff(w, "  upstream", u.Upstream)
		if u.Description != nil {
			fmt.Fprintf(w, "  description: - %s\n", shown(u.Description.Old))
			fmt.Fprintf(w, "               + %s\n", shown(u.Description.New))
		}
		for _, f := range u.Audit {
			fmt.Fprintf(w, "  audit: %s:%d: %s (%s): %s\n", shown(f.File), f.Line, f.Rule, f.Severity, shown(f.Message))
		}
		if !u.Local.Empty() {
			printDiff(w, "  edited here", u.Local)
			for _, f := range slices.Sorted(maps.Keys(u.LocalDiff)) {
				fmt.Fprintf(w, "  %s, here -> upstream:\n", shown(f))
				for _, l := range u.LocalDiff[f] {
					fmt.Fprintf(w, "    %s\n", shown(l))
				}
			}
		}
	}
}

// netProblems are the plan's problems, a source that timed out with the
// way out of it.
func netProblems(found []install.Problem) updateProblems {
	var problems updateProblems
	for _, p := range found {
		if p.Hint == "" {
			p.Err = netErr(p.Err)
			var h hintError
			if errors.As(p.Err, &h) && len(h.hints) > 0 {
				p.Hint = h.hints[0]
			}
		}
		problems = append(problems, p)
	}
	return problems
}

func printDiff(w io.Writer, label string, d skillslock.FileDiff) {
	for _, f := range d.Added {
		fmt.Fprintf(w, "%s: added   %s\n", label, shown(f))
	}
	for _, f := range d.Removed {
		fmt.Fprintf(w, "%s: removed %s\n", label, shown(f))
	}
	for _, f := range d.Changed {
		fmt.Fprintf(w, "%s: changed %s\n", label, shown(f))
	}
}
