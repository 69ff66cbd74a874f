package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/skillfile"
	"github.com/spf13/cobra"
)

// errUpdatesAvailable: `skill update --check` found skills whose source
// moved on (exit 11, for CI).
var errUpdatesAvailable = errors.New("updates available")

type skillUpdateOptions struct {
	app   *app
	names []string
	check bool
	force bool
	allow []string
	json  bool
}

// newSkillUpdateCmd parses `megagit skill update` into options and hands
// them to runF, or to skillUpdateRun when runF is nil (tests pass a stub).
func newSkillUpdateCmd(a *app, runF func(*skillUpdateOptions) error) *cobra.Command {
	opts := &skillUpdateOptions{app: a}
	cmd := &cobra.Command{
		Use:   "update [NAME...] [--check] [--force]",
		Short: "Bring installed skills up to date with their sources, in one commit that keeps their evidence",
		Long: `Fetch the source of each installed skill (every one in .megagit/skills.lock,
or the NAMEs given) at the ref it was installed from, show what changed
upstream (files added, removed, changed; the description; megagit audit's
findings in the new files), and apply it in one commit. The skill's evidence
stays: its ledger, and mega_meta in its SKILL.md. A high audit finding
refuses the update unless --allow RULE. A skill edited here since it was
installed is never overwritten without --force (nothing is written; its
edited files are named, with the lines the update would replace).

--check only reports, and exits 11 when an update is available.`,
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
	cmd.Flags().StringArrayVar(&opts.allow, "allow", nil, "update skills whose high audit findings are of this `RULE` all the same (repeatable; `megagit audit --help` lists the rules)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: skills (name, source, ref, from, to, status, upstream, local, description, audit), commit")
	return cmd
}

// Update statuses.
const (
	updUpToDate = "up to date"
	updUpdate   = "update"
	updEdited   = "edited here"
	updForced   = "update (overwrites local edits)"
)

// updateJSON is one skill in `megagit skill update --json`.
type updateJSON struct {
	Name        string            `json:"name"`
	Source      string            `json:"source"`
	Ref         string            `json:"ref"`
	From        string            `json:"from"` // the commit installed
	To          string            `json:"to"`   // the source's commit now
	Status      string            `json:"status"`
	Upstream    registry.FileDiff `json:"upstream"` // installed -> source now
	Local       registry.FileDiff `json:"local"`    // installed -> here
	Description *descDiff         `json:"description,omitempty"`
	Audit       []audit.Finding   `json:"audit"` // in the source's files now; files relative to the skill's folder
	// LocalDiff is, for each file edited here and changed by the update,
	// its lines the update replaces ("- ") and brings ("+ ").
	LocalDiff map[string][]string `json:"local_diff,omitempty"`
	item      *registry.Install
}

type descDiff struct {
	Old string `json:"old"`
	New string `json:"new"`
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
				return printJSON(a.out, map[string]any{"skills": []updateJSON{}, "commit": ""})
			}
			return nil
		}
	}
	for _, n := range names {
		if _, ok := lock.Skills[n]; ok {
			if _, err := e.Reg.Skill(n); errors.Is(err, registry.ErrNotFound) {
				return withHint(fmt.Errorf("%w: skill %q is in %s but not in the registry (deleted by hand or with plain git)", registry.ErrNotFound, n, registry.LockFile),
					"`megagit doctor --fix` drops its entry; `megagit skill install SOURCE "+n+"` puts it back")
			}
			continue
		}
		if _, err := e.Reg.Skill(n); err != nil {
			return err
		}
		return fmt.Errorf("%w: skill %q was not installed from a git source (it is local): nothing to update it from", local.ErrInvalid, n)
	}

	sources := map[[2]string]*regsync.Source{}
	var report []updateJSON
	for _, n := range names {
		entry := lock.Skills[n]
		key := [2]string{entry.Source, entry.Ref}
		src, ok := sources[key]
		if !ok {
			fmt.Fprintf(a.errOut, "megagit: fetching %s\n", gitauth.Redact(entry.Source))
			if src, err = regsync.FetchSource(context.Background(), entry.Source, entry.Ref); err != nil {
				return netErr(err)
			}
			sources[key] = src
		}
		u, err := planUpdate(e.Reg, n, entry, src, opts.force)
		if err != nil {
			return err
		}
		report = append(report, u)
	}

	pending, edited := 0, []string{}
	var items []registry.Install
	for _, u := range report {
		switch u.Status {
		case updUpdate, updForced:
			pending++
			items = append(items, *u.item)
		case updEdited:
			pending++
			edited = append(edited, u.Name)
		}
	}
	if !opts.json {
		printUpdates(a.out, report)
	}
	if opts.check || len(edited) > 0 || len(items) == 0 {
		if opts.json {
			if err := printJSON(a.out, map[string]any{"skills": report, "commit": ""}); err != nil {
				return err
			}
		}
		switch {
		case len(edited) > 0 && !opts.check:
			return withHint(fmt.Errorf("%w: nothing updated: %s", registry.ErrLocalEdits, strings.Join(edited, ", ")),
				"`megagit skill update --force NAME` overwrites a skill's local edits (its evidence stays); name the others to update only them")
		case pending > 0:
			fmt.Fprintf(a.errOut, "megagit: %d of %d skill(s) can be updated\n", pending, len(report))
			return errUpdatesAvailable
		}
		fmt.Fprintf(a.errOut, "megagit: %d skill(s) up to date\n", len(report))
		return nil
	}
	var sets []auditedSet
	for _, u := range report {
		if u.item != nil {
			sets = append(sets, auditedSet{findings: u.Audit, name: inSource(u.item.Entry.Path)})
		}
	}
	if err := refuseFindings(a, sets, opts.allow, "updated"); err != nil {
		return err
	}
	done, warnings, hash, err := e.Reg.InstallSkills(items, registry.InstallOptions{Force: opts.force, Action: "update"})
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
		fmt.Fprintf(a.errOut, "megagit: updated %d skill(s): %s (commit %s)\n", len(updated), strings.Join(updated, ", "), hash.String()[:12])
	}
	if opts.json {
		return printJSON(a.out, map[string]any{"skills": report, "commit": commit})
	}
	return nil
}

// planUpdate compares one installed skill with its source now: what
// changed upstream, what changed here, and the item that would update it.
func planUpdate(reg *registry.Registry, name string, entry registry.LockEntry, src *regsync.Source, force bool) (updateJSON, error) {
	u := updateJSON{Name: name, Source: gitauth.Redact(entry.Source), Ref: entry.Ref, From: entry.Commit, To: src.Commit.String(), Audit: []audit.Finding{}}
	files, exec, err := src.Files(entry.Path)
	if errors.Is(err, registry.ErrNotFound) {
		return u, fmt.Errorf("%w: skill %s is no longer at %s in %s (commit %s); `megagit skill install` it from where it is now",
			registry.ErrNotFound, name, entry.Path, gitauth.Redact(entry.Source), src.Commit.String()[:12])
	}
	if err != nil {
		return u, err
	}
	if _, ok := files["SKILL.md"]; !ok {
		return u, fmt.Errorf("%w: %s in %s (commit %s) has no SKILL.md any more", registry.ErrNotFound, entry.Path, gitauth.Redact(entry.Source), src.Commit.String()[:12])
	}
	here, err := reg.LocalFiles(name)
	if err != nil {
		return u, err
	}
	u.Upstream = registry.DiffHashes(entry.Files, registry.HashFiles(files))
	u.Local = registry.DiffHashes(entry.Files, here)
	if u.Upstream.Empty() {
		u.Status = updUpToDate
		return u, nil
	}
	u.Audit = nonNil(audit.Files(files))
	switch {
	case !u.Local.Empty() && !force:
		u.Status = updEdited
	case !u.Local.Empty():
		u.Status = updForced
	default:
		u.Status = updUpdate
	}
	if !u.Local.Empty() {
		u.LocalDiff = map[string][]string{}
		for _, f := range u.Local.Changed {
			here, err := reg.LocalFile(name, f)
			if err != nil {
				continue // unreadable here: named as edited all the same
			}
			u.LocalDiff[f] = lineDiff(here, files[f], maxDiffLines)
		}
	}
	old := ""
	if s, err := reg.Skill(name); err == nil {
		old = s.File.Description()
	}
	if f, err := skillfile.Parse("SKILL.md", files["SKILL.md"]); err == nil && f.Description() != old {
		u.Description = &descDiff{Old: old, New: f.Description()}
	}
	entry.Commit, entry.CommitTime = src.Commit.String(), src.Time.UTC().Format(time.RFC3339)
	u.item = &registry.Install{Name: name, Files: files, Exec: exec, Entry: entry}
	return u, nil
}

// printUpdates writes the per-skill report: a line per skill, then what
// changed upstream and here.
func printUpdates(w io.Writer, report []updateJSON) {
	for _, u := range report {
		from, to := short(u.From), short(u.To)
		ref := u.Ref
		if ref == "" {
			ref = "default branch"
		}
		if u.Status == updUpToDate {
			fmt.Fprintf(w, "%s: up to date (%s, %s at %s)\n", shown(u.Name), shown(u.Source), shown(ref), to)
			continue
		}
		fmt.Fprintf(w, "%s: %s %s -> %s (%s, %s)\n", shown(u.Name), u.Status, from, to, shown(u.Source), shown(ref))
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

func printDiff(w io.Writer, label string, d registry.FileDiff) {
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

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// maxDiffLines bounds the lines shown of one file's local diff.
const maxDiffLines = 20

// lineDiff lists the lines of here that there replaces ("- ") and the
// lines it brings ("+ "), at most max of them then how many more; a
// binary file is one line saying so.
func lineDiff(here, there []byte, max int) []string {
	if bytes.IndexByte(here, 0) >= 0 || bytes.IndexByte(there, 0) >= 0 {
		return []string{"(binary file)"}
	}
	var out []string
	more := 0
	for _, d := range diff.Do(string(here), string(there)) {
		sign := ""
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			sign = "- "
		case diffmatchpatch.DiffInsert:
			sign = "+ "
		default:
			continue
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l == "" {
				continue
			}
			if len(out) == max {
				more++
				continue
			}
			out = append(out, sign+strings.TrimSuffix(l, "\n"))
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("(%d more lines)", more))
	}
	return out
}
