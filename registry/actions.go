package registry

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
	"github.com/megagit/megagit/skillfile"
)

// AddSkill creates <first root>/<name>/SKILL.md in one commit.
func (r *Registry) AddSkill(name, description, body string) (string, gitstore.Hash, error) {
	if err := skillfile.ValidateName(name); err != nil {
		return "", gitstore.ZeroHash, err // names the skill and says what is wrong (exit 5)
	}
	// Bytes that are not UTF-8 would be written as U+FFFD: refused, not
	// changed unseen.
	if !utf8.ValidString(description) {
		return "", gitstore.ZeroHash, fmt.Errorf("%w: field description: not valid UTF-8; give the text in UTF-8", errkind.ErrInvalid)
	}
	// The description is the agents' text too: no control characters.
	description = safetext.Message(description)
	if strings.TrimSpace(description) == "" {
		return "", gitstore.ZeroHash, fmt.Errorf("%w: field description: a skill needs a description (agents route on it)", errkind.ErrInvalid)
	}
	rel := path.Join(r.opts.Roots[0], name, "SKILL.md")
	hash, err := r.Write(func() (string, []Change, error) {
		if s, err := r.Skill(name); err == nil {
			return "", nil, fmt.Errorf("%w: skill %q at %s", ErrExists, name, s.Path)
		} else if !errors.Is(err, ErrNotFound) {
			return "", nil, err
		}
		data := skillfile.RenderNew(name, description, body)
		if _, err := skillfile.Parse(rel, data); err != nil {
			return "", nil, fmt.Errorf("%w: %w", errkind.ErrInvalid, err)
		}
		return fmt.Sprintf("skill(%s): add\n\nMegagit-Action: add\nMegagit-Skill: %s\n", name, name), []Change{{Path: rel, Data: data}}, nil
	})
	return rel, hash, err
}

// Write runs fn under the registry's lock, after finishing any write a
// killed process left, and commits the changes fn returns with the
// message it returns, all or nothing; no changes, no commit (zero hash).
// Packages that write skills of their own kind (installs) build on it.
func (r *Registry) Write(fn func() (string, []Change, error)) (gitstore.Hash, error) {
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	defer lock.Release()
	if _, err := r.RecoverLocked(); err != nil {
		return gitstore.ZeroHash, err
	}
	msg, changes, err := fn()
	if err != nil || len(changes) == 0 {
		return gitstore.ZeroHash, err
	}
	return r.commitChanges(msg, changes)
}

// Unarchive lifts an archive with an explicit, logged action.
func (r *Registry) Unarchive(name, reason string, now time.Time) (gitstore.Hash, error) {
	if strings.TrimSpace(reason) == "" {
		return gitstore.ZeroHash, fmt.Errorf("%w: --reason is required: say why the skill may be used again", errkind.ErrInvalid)
	}
	return r.writeLocked(func(e *edit) (string, error) {
		st, err := e.state(name)
		if err != nil {
			return "", err
		}
		st.evidence = ledger.Replay(st.evidence, st.entries)
		if st.evidence.Status != lifecycle.Archived {
			return "", fmt.Errorf("%w: skill %q is %s, not archived", errkind.ErrInvalid, name, st.evidence.Status)
		}
		at := recordTime(st.entries, now)
		entry := ledger.Entry{ID: ledger.NewID(at), Skill: name, Action: ledger.ActionUnarchive, Source: ledger.SourceExplicit,
			Reason: oneLine(reason), At: at.UTC().Format(time.RFC3339Nano)}
		st.evidence = lifecycle.Apply(st.evidence, entry.Event())
		st.entries = append(st.entries, entry)
		st.ledger = ledger.Append(st.ledger, []ledger.Entry{entry})
		st.changed, st.ledgerCh = true, true
		return fmt.Sprintf("unarchive(%s)\n\n%s\n\nMegagit-Action: unarchive\nMegagit-Skill: %s\nMegagit-Id: %s\nMegagit-Reason: %s\nMegagit-Status: archived -> active\n",
			name, entry.Reason, name, entry.ID, entry.Reason), nil
	})
}

// ResyncResult says what resync changed for one skill.
type ResyncResult struct {
	Skill  string
	Before lifecycle.Evidence
	After  lifecycle.Evidence
}

// Resync rebuilds counts, streak, status and weight from the ledger for one
// skill (or all when name is ""), keeping contexts; it commits only when
// something changed.
func (r *Registry) Resync(name string) ([]ResyncResult, gitstore.Hash, error) {
	var results []ResyncResult
	hash, err := r.writeLocked(func(e *edit) (string, error) {
		names := []string{name}
		if name == "" {
			skills, problems, err := r.Skills()
			if err != nil {
				return "", err
			}
			for _, p := range problems {
				r.warn("%v", p)
			}
			names = names[:0]
			for _, s := range skills {
				names = append(names, s.Name)
			}
		}
		for _, n := range names {
			st, err := e.state(n)
			if err != nil {
				return "", err
			}
			if len(st.entries) == 0 && !st.skill.File.HasEvidence() {
				continue
			}
			after := ledger.Replay(st.evidence, st.entries)
			rendered, err := st.skill.File.WithEvidence(after)
			if err != nil {
				return "", err
			}
			if bytes.Equal(rendered, st.skill.File.Raw()) {
				continue
			}
			results = append(results, ResyncResult{Skill: n, Before: st.evidence, After: after})
			st.evidence, st.changed = after, true
		}
		var b strings.Builder
		fmt.Fprintf(&b, "resync: %d skill(s) rebuilt from the ledger\n\n", len(results))
		for _, res := range results {
			fmt.Fprintf(&b, "Megagit-Action: resync\nMegagit-Skill: %s\n", res.Skill)
			if res.Before.Status != res.After.Status {
				fmt.Fprintf(&b, "Megagit-Status: %s -> %s\n", res.Before.Status, res.After.Status)
			}
		}
		return b.String(), nil
	})
	return results, hash, err
}

// DerivedContexts is what the contexts would be if taken straight from the
// ledger: the last three of each polarity. A sync compares it with each
// side's mega_meta to tell hand-curated contexts from derived ones.
func DerivedContexts(entries []ledger.Entry) (help, harm []string) {
	e := lifecycle.ColdStart()
	for _, en := range entries {
		if en.Source == ledger.SourceExplicit && en.Action == "" {
			e = lifecycle.Apply(e, en.Event())
		}
	}
	return e.HelpfulContexts, e.HarmfulContexts
}

// Revert undoes verdicts: ref is a commit hash (prefix ok) whose Megagit-Id
// trailers name them, or a verdict id. Their ledger lines are removed, the
// evidence is recomputed, and the result is one commit.
func (r *Registry) Revert(ref string, now time.Time) ([]ledger.Entry, gitstore.Hash, error) {
	ids, commit, err := r.resolveRevert(ref)
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	var removed []ledger.Entry
	hash, err := r.writeLocked(func(e *edit) (string, error) {
		skills, err := r.skillsWithIDs(ids)
		if err != nil {
			return "", err
		}
		for _, name := range skills {
			st, err := e.state(name)
			if err != nil {
				return "", err
			}
			curHelp, curHarm := DerivedContexts(st.entries)
			var keep []ledger.Entry
			var gone []ledger.Entry
			for _, en := range st.entries {
				if ids[en.ID] {
					gone = append(gone, en)
				} else {
					keep = append(keep, en)
				}
			}
			lines, err := removeLedgerLines(st.ledger, ids)
			if err != nil {
				return "", err
			}
			before := st.evidence
			after := ledger.Replay(st.evidence, keep)
			userCurated := strings.Join(curHelp, "\x00") != strings.Join(before.HelpfulContexts, "\x00") ||
				strings.Join(curHarm, "\x00") != strings.Join(before.HarmfulContexts, "\x00")
			if userCurated {
				for _, g := range gone {
					if g.Action == ledger.ActionUse {
						continue // a shared use is no context of mega_meta's
					}
					after.HelpfulContexts = removeLast(after.HelpfulContexts, g.Context)
					after.HarmfulContexts = removeLast(after.HarmfulContexts, g.Context)
				}
			} else {
				after.HelpfulContexts, after.HarmfulContexts = DerivedContexts(keep)
			}
			st.entries, st.ledger, st.evidence = keep, lines, after
			st.changed, st.ledgerCh = true, true
			removed = append(removed, gone...)
			_ = before
		}
		if len(removed) == 0 {
			return "", fmt.Errorf("%w: verdict(s) of %s are not in the ledger (already reverted?)", ErrNotFound, ref)
		}
		var b strings.Builder
		if len(removed) == 1 {
			fmt.Fprintf(&b, "revert: verdict(%s): %s\n\n", removed[0].Skill, cmp.Or(removed[0].Verdict, removed[0].Action))
		} else {
			fmt.Fprintf(&b, "revert: %d verdicts\n\n", len(removed))
		}
		if commit != "" {
			fmt.Fprintf(&b, "This reverts commit %s.\n\n", commit)
		}
		for _, en := range removed {
			st := e.states[en.Skill]
			fmt.Fprintf(&b, "Megagit-Revert: %s\nMegagit-Skill: %s\n", en.ID, en.Skill)
			if s := st.skill.Evidence.Status; s != st.evidence.Status {
				fmt.Fprintf(&b, "Megagit-Status: %s -> %s\n", s, st.evidence.Status)
			}
		}
		return b.String(), nil
	})
	return removed, hash, err
}

func removeLast(list []string, s string) []string {
	if s == "" {
		return list
	}
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == s {
			return append(append([]string(nil), list[:i]...), list[i+1:]...)
		}
	}
	return list
}

// removeLedgerLines drops the lines whose id is in ids, keeping every other
// byte as it is.
func removeLedgerLines(data []byte, ids map[string]bool) ([]byte, error) {
	var out []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		entries, _ := ledger.Parse("", []byte(line))
		if len(entries) == 1 && ids[entries[0].ID] {
			continue
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "")), nil
}

// skillsWithIDs finds which skills' ledgers hold the ids.
func (r *Registry) skillsWithIDs(ids map[string]bool) ([]string, error) {
	dir := r.abs(local.LedgerDir)
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []string
	for _, ent := range ents {
		name, ok := strings.CutSuffix(ent.Name(), ".jsonl")
		if !ok {
			continue
		}
		data, err := r.readLedger(local.LedgerDir + "/" + ent.Name())
		if err != nil {
			return nil, err
		}
		entries, _ := ledger.Parse(ent.Name(), data)
		for _, en := range entries {
			if ids[en.ID] {
				out = append(out, name)
				break
			}
		}
	}
	return out, nil
}
