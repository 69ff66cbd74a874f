package install

import (
	"context"
	"errors"
	"fmt"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/registry/skillslock"
)

// PlanUpdates compares each installed skill named (of lock, read from reg)
// with its source now, fetching each source and ref once, with
// its history: an upstream that does not descend from the installed
// commit is refused. A skill that cannot be checked (deleted here, its
// source unreachable, gone from its source) gets a report saying so and a
// problem; the others are still planned. The error is one that stops every
// check: a NAME that was never installed from a source, or a registry that
// cannot be read.
func PlanUpdates(ctx context.Context, reg *registry.Registry, lock skillslock.Lock, names []string, opts UpdateOptions) ([]Report, []Problem, error) {
	// A NAME asked for that was never installed: nothing to check it against.
	for _, n := range names {
		if _, ok := lock.Skills[n]; ok {
			continue
		}
		if _, err := reg.Skill(n); err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%w: skill %q was not installed from a git source (it is local): nothing to update it from", errkind.ErrInvalid, n)
	}
	type fetched struct {
		src *regsync.Source
		err error
	}
	sources := map[[2]string]*fetched{}
	budget := regsync.NewBudget()
	var report []Report
	var problems []Problem
	for _, n := range names {
		entry := lock.Skills[n]
		u := Blank(n, entry)
		if _, err := reg.Skill(n); errors.Is(err, registry.ErrNotFound) {
			u.Status = StatusMissing
			err := fmt.Errorf("%w: skill %q is in %s but not in the registry (deleted by hand or with plain git)", registry.ErrNotFound, n, skillslock.File)
			u.Problem = err.Error()
			problems = append(problems, Problem{Err: err, Hint: "`megagit doctor --fix` drops its entry; `megagit skill install SOURCE " + n + "` puts it back"})
			report = append(report, u)
			continue
		} else if err != nil {
			return nil, nil, err
		}
		key := [2]string{entry.Source, entry.Ref}
		f, ok := sources[key]
		if !ok {
			if opts.Fetching != nil {
				opts.Fetching(entry.Source)
			}
			f = &fetched{}
			f.src, f.err = regsync.FetchSourceHistory(ctx, entry.Source, entry.Ref)
			sources[key] = f
			if f.err != nil {
				problems = append(problems, Problem{Err: f.err})
			}
		}
		if f.err != nil {
			u.Status, u.Problem = StatusUnreachable, f.err.Error()
			report = append(report, u)
			continue
		}
		u, problem, err := PlanUpdate(reg, n, entry, f.src, budget, opts)
		if err != nil {
			return nil, nil, err
		}
		if problem != nil {
			u.Problem = problem.Err.Error()
			problems = append(problems, *problem)
		}
		report = append(report, u)
	}
	return report, problems, nil
}

// Updatable splits a plan: the skills an update would change (pending),
// those of them edited here, which only --force overwrites (edited), and
// the items that install the others.
func Updatable(report []Report) (pending, edited []string, items []Install) {
	pending, edited = []string{}, []string{}
	for _, u := range report {
		switch u.Status {
		case StatusUpdate, StatusForced, StatusRestore:
			pending = append(pending, u.Name)
			items = append(items, *u.Item)
		case StatusEdited:
			pending = append(pending, u.Name)
			edited = append(edited, u.Name)
		}
	}
	return pending, edited, items
}
