package install

// Update planning compares the skills installed from git sources with
// their sources now: what changed there, what changed here, the lines an
// update would replace, and what would update each (`megagit skill
// update`).

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
)

// The statuses of an installed skill against its source now.
const (
	StatusUpToDate    = "up to date"
	StatusUpdate      = "update"
	StatusEdited      = "edited here"
	StatusForced      = "update (overwrites local edits)"
	StatusLocalOnly   = "edited here, upstream unchanged"
	StatusRestore     = "restore (overwrites local edits)"
	StatusRewritten   = "upstream rewritten"
	StatusLeft        = "left its source"
	StatusMissing     = "not in the registry"
	StatusUnreachable = "source unreachable"
)

// Report is one installed skill against its source now, as `megagit
// skill update --json` prints it.
type Report struct {
	Name        string              `json:"name"`
	Source      string              `json:"source"`
	Ref         string              `json:"ref"`
	From        string              `json:"from"` // the commit installed
	To          string              `json:"to"`   // the source's commit now
	Status      string              `json:"status"`
	Upstream    skillslock.FileDiff `json:"upstream"` // installed -> source now
	Local       skillslock.FileDiff `json:"local"`    // installed -> here
	Description *DescChange         `json:"description,omitempty"`
	Audit       []audit.Finding     `json:"audit"` // in the source's files now; files relative to the skill's folder
	// LocalDiff is, for each file edited here and changed by the update,
	// its lines the update replaces ("- ") and brings ("+ ").
	LocalDiff map[string][]string `json:"local_diff,omitempty"`
	// Problem says why the skill could not be checked or updated, and
	// what to do.
	Problem string `json:"problem,omitempty"`
	// Item is what would update it (nil: nothing to, or it cannot be).
	Item *Install `json:"-"`
}

// DescChange is a description the update changes.
type DescChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Problem is why one skill (or every skill of a source) could not be
// checked or updated, and what to do.
type Problem struct {
	Err  error
	Hint string
}

// UpdateOptions are what an update may do: overwrite local edits (Force), take a
// new commit that does not descend from the installed one (AllowUnrelated).
type UpdateOptions struct {
	Force, AllowUnrelated bool
	// Fetching, when set, hears of each source before PlanUpdates fetches it.
	Fetching func(source string)
}

// Blank is the report of a skill not compared yet: its provenance, no
// change, no finding.
func Blank(name string, entry skillslock.Entry) Report {
	return Report{Name: name, Source: gitauth.Redact(entry.Source), Ref: entry.Ref, From: entry.Commit, Audit: []audit.Finding{},
		Upstream: skillslock.DiffHashes(nil, nil), Local: skillslock.DiffHashes(nil, nil)}
}

// PlanUpdate compares one installed skill with its source now: what changed
// upstream, what changed here, and the item that would update it; or the
// problem that keeps it from being updated (it left its source, or the
// source's history was rewritten).
func PlanUpdate(reg *registry.Registry, name string, entry skillslock.Entry, src *regsync.Source, budget *regsync.Budget, opts UpdateOptions) (Report, *Problem, error) {
	u := Report{Name: name, Source: gitauth.Redact(entry.Source), Ref: entry.Ref, From: entry.Commit, To: src.Commit.String(), Audit: []audit.Finding{},
		Upstream: skillslock.DiffHashes(nil, nil), Local: skillslock.DiffHashes(nil, nil)}
	files, exec, err := src.Files(entry.Path, nil)
	left := func(err error) (Report, *Problem, error) {
		u.Status = StatusLeft
		return u, &Problem{err, fmt.Sprintf("`megagit skill install %s --path FOLDER` takes %s from where it is in the source now (its evidence stays), or `megagit skill rm %s` drops it",
			gitauth.Redact(entry.Source), name, name)}, nil
	}
	if errors.Is(err, registry.ErrNotFound) {
		return left(fmt.Errorf("%w: skill %s left its source: no folder %s in %s (commit %s)",
			registry.ErrNotFound, name, entry.Path, gitauth.Redact(entry.Source), src.Commit.String()[:12]))
	}
	if err != nil {
		return u, nil, err
	}
	if _, ok := files["SKILL.md"]; !ok {
		return left(fmt.Errorf("%w: skill %s left its source: %s in %s (commit %s) has no SKILL.md any more",
			registry.ErrNotFound, name, entry.Path, gitauth.Redact(entry.Source), src.Commit.String()[:12]))
	}
	// The registry names the skill: one renamed here (skill mv) keeps its
	// name when its source's SKILL.md says the old one.
	if f, err := skillfile.Parse("SKILL.md", files["SKILL.md"]); err == nil && f.Name() != name {
		if renamed, err := f.WithName(name); err == nil {
			files["SKILL.md"] = renamed
		}
	}
	here, err := LocalFiles(reg, name)
	if err != nil {
		return u, nil, err
	}
	u.Upstream = skillslock.DiffHashes(entry.Files, skillslock.HashFiles(files))
	u.Local = skillslock.DiffHashes(entry.Files, here)
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
	var problem *Problem
	switch {
	case u.Upstream.Empty() && u.Local.Empty():
		u.Status = StatusUpToDate
		return u, nil, nil
	case u.Upstream.Empty() && !opts.Force:
		u.Status = StatusLocalOnly
		return u, nil, nil
	case u.Upstream.Empty():
		u.Status = StatusRestore
	default:
		u.Audit = audit.Files(files)
		if u.Audit == nil {
			u.Audit = []audit.Finding{}
		}
		switch {
		case !u.Local.Empty() && !opts.Force:
			u.Status = StatusEdited
		case !u.Local.Empty():
			u.Status = StatusForced
		default:
			u.Status = StatusUpdate
		}
		ok, err := src.Descends(entry.Commit)
		if err != nil {
			return u, nil, err
		}
		if !ok && !opts.AllowUnrelated {
			u.Status = StatusRewritten
			ref := entry.Ref
			if ref == "" {
				ref = "its default branch"
			}
			problem = &Problem{fmt.Errorf("%w: skill %s: %s (%s) is at %s now, which does not descend from the installed %s (a force-push, or another history); nothing of it was updated",
				registry.ErrConflict, name, gitauth.Redact(entry.Source), ref, Short(src.Commit.String()), Short(entry.Commit)),
				"look at the source's history first; `megagit skill update --allow-unrelated " + name + "` takes the new commit all the same"}
		}
	}
	old := ""
	if s, err := reg.Skill(name); err == nil {
		old = s.File.Description()
	}
	if f, err := skillfile.Parse("SKILL.md", files["SKILL.md"]); err == nil && f.Description() != old {
		u.Description = &DescChange{Old: old, New: f.Description()}
	}
	if problem != nil {
		return u, problem, nil
	}
	if err := budget.Take(src, entry.Path, files); err != nil {
		return u, nil, err
	}
	entry.Commit, entry.CommitTime = src.Commit.String(), src.Time.UTC().Format(time.RFC3339)
	u.Item = &Install{Name: name, Files: files, Exec: exec, Entry: entry}
	return u, nil, nil
}

// Short is a commit hash as megagit prints it: its first 12 digits.
func Short(h string) string {
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
	for _, d := range lines(string(here), string(there)) {
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

// lines diffs two texts line by line: each line is one symbol of the diff.
func lines(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	ra, rb, table := dmp.DiffLinesToRunes(a, b)
	return dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), table)
}
