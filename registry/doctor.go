package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/ledger"
)

// JournalPending reports whether an interrupted write left its journal
// behind in the registry at root (checked before Open replays it).
func JournalPending(root string) bool {
	_, err := os.Stat(root + "/" + local.MachineDir + "/" + local.JournalFile)
	return err == nil
}

// Doctor runs the registry's own checks: skills parse, ledgers read,
// frontmatter agrees with a replay of the ledger, the git state is sane,
// no commit of the branch is one `git fsck --strict` rejects,
// the lock is free, no interrupted write waits, and the union merge rule
// is in place. It never changes anything (regsync.RemoteCheck checks the
// remote).
func (r *Registry) Doctor() []doctor.Check {
	var out []doctor.Check
	add := func(name, status, detail, hint string) {
		out = append(out, doctor.Check{Name: name, Status: status, Detail: detail, Hint: hint})
	}
	skills, problems, err := r.Skills()
	switch {
	case err != nil:
		add("skills", doctor.Fail, err.Error(), "")
	case len(problems) > 0:
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Error()
		}
		add("skills", doctor.Fail, fmt.Sprintf("%d skill(s) load, %d refused: %s", len(skills), len(problems), strings.Join(msgs, "; ")), "run `megagit lint` for details and fix the files")
	default:
		add("skills", doctor.OK, fmt.Sprintf("%d skill(s) load", len(skills)), "")
	}
	out = append(out, r.ledgerChecks(skills)...)
	out = append(out, r.gitChecks()...)
	out = append(out, r.historyCheck())
	out = append(out, debrisCheck(r.TempDebris()))
	out = append(out, r.refsCheck())
	out = append(out, r.localStateCheck())
	return out
}

// refsCheck fails on torn ref files and on git locks a killed megagit
// left; doctor --fix removes the locks and the torn remote-tracking refs.
func (r *Registry) refsCheck() doctor.Check {
	torn, locks := r.TornRefs(), r.StaleGitLocks()
	if len(torn) == 0 && len(locks) == 0 {
		return doctor.Check{Name: "refs", Status: doctor.OK, Detail: "every ref reads, no git lock left by a killed megagit"}
	}
	var parts []string
	if len(torn) > 0 {
		parts = append(parts, fmt.Sprintf("%d torn ref file(s), neither a hash nor a symbolic ref: %s", len(torn), strings.Join(torn, ", ")))
	}
	if len(locks) > 0 {
		parts = append(parts, fmt.Sprintf("%d git lock(s) left by a killed megagit, which plain git stops at: %s", len(locks), strings.Join(locks, ", ")))
	}
	hint := "run `megagit doctor --fix`: it removes git locks a killed megagit left and torn remote-tracking refs (the next sync fetches them again)"
	if i := slices.IndexFunc(torn, func(t string) bool { return !strings.HasPrefix(t, "refs/remotes/") }); i >= 0 {
		hint = "a torn branch or tag is never removed for you: point it at its commit again with `git update-ref " + torn[i] + " <commit>` (`git reflog` lists candidates); " + hint
	}
	return doctor.Check{Name: "refs", Status: doctor.Fail, Detail: strings.Join(parts, "; "), Hint: hint}
}

// ledgerChecks reads every ledger and compares each skill's mega_meta with
// a replay of its ledger (what resync would write).
func (r *Registry) ledgerChecks(skills []*Skill) []doctor.Check {
	var out []doctor.Check
	var bad []string
	byName := map[string]*Skill{}
	for _, s := range skills {
		byName[s.Name] = s
	}
	ents, err := os.ReadDir(r.abs(local.LedgerDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return []doctor.Check{{Name: "ledger", Status: doctor.Fail, Detail: err.Error()}}
	}
	ledgers := map[string][]ledger.Entry{}
	lines, orphans := 0, []string{}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() {
			continue
		}
		data, err := r.readLedger(ledger.Path(name))
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if bytes.Contains(data, []byte("\n<<<<<<<")) || bytes.HasPrefix(data, []byte("<<<<<<<")) {
			bad = append(bad, ledger.Path(name)+": has git conflict markers")
		}
		entries, problems := ledger.Parse(ledger.Path(name), data)
		bad = append(bad, problems...)
		ledgers[name] = entries
		lines += len(entries)
		if byName[name] == nil {
			orphans = append(orphans, name)
		}
	}
	switch {
	case len(bad) > 0:
		out = append(out, doctor.Check{Name: "ledger", Status: doctor.Warn, Detail: fmt.Sprintf("%d verdict(s) read; %d unreadable or misplaced line(s) skipped: %s", lines, len(bad), strings.Join(bad, "; ")),
			Hint: "skipped lines count as nothing; remove them by hand (git log -p shows where they came from)"})
	default:
		out = append(out, doctor.Check{Name: "ledger", Status: doctor.OK, Detail: fmt.Sprintf("%d verdict(s) in %d ledger(s)", lines, len(ledgers))})
	}
	if len(orphans) > 0 {
		sort.Strings(orphans)
		out = append(out, doctor.Check{Name: "ledger-orphans", Status: doctor.Warn, Detail: "ledgers without a skill: " + strings.Join(orphans, ", ")})
	}
	var stale, unarchived []string
	for _, s := range skills {
		entries := ledgers[s.Name]
		if len(entries) == 0 && !s.File.HasEvidence() {
			continue
		}
		replayed := ledger.Replay(s.Evidence, entries)
		want, err := s.File.WithEvidence(replayed)
		if err != nil || !bytes.Equal(want, s.File.Raw()) {
			stale = append(stale, s.Name)
		}
		if replayed.Status == lifecycle.Archived && s.Evidence.Status != lifecycle.Archived {
			// A hand edit does not lift an archive (the router keeps it
			// archived): say what does.
			unarchived = append(unarchived, fmt.Sprintf("%s is archived by its ledger but its mega_meta says %s (edited by hand?): megagit routes it as archived; `megagit unarchive %s --reason R` brings it back",
				s.Name, s.Evidence.Status, s.Name))
		}
	}
	if len(stale) > 0 {
		hint := "run `megagit resync` (or `megagit doctor --fix`)"
		if len(unarchived) > 0 {
			hint = strings.Join(unarchived, "; ") + "; " + hint + " to put mega_meta back in line with the ledger"
		}
		out = append(out, doctor.Check{Name: "evidence", Status: doctor.Fail,
			Detail: fmt.Sprintf("mega_meta of %d skill(s) disagrees with the ledger: %s", len(stale), strings.Join(stale, ", ")),
			Hint:   hint})
	} else {
		out = append(out, doctor.Check{Name: "evidence", Status: doctor.OK, Detail: "every skill's mega_meta matches a replay of its ledger"})
	}
	return out
}

// gitChecks looks at HEAD, the lock, the journal and .gitattributes.
func (r *Registry) gitChecks() []doctor.Check {
	var out []doctor.Check
	branch, head, err := r.Head()
	switch {
	case err != nil:
		out = append(out, doctor.Check{Name: "git", Status: doctor.Fail, Detail: err.Error()})
	case head.IsZero():
		out = append(out, doctor.Check{Name: "git", Status: doctor.Warn, Detail: "branch " + branch.Short() + " has no commits yet"})
	case r.ref != "":
		out = append(out, doctor.Check{Name: "git", Status: doctor.OK, Detail: fmt.Sprintf("registry on branch %s at %s (its own; the checked-out branch is never touched)", branch.Short(), head.String()[:12])})
	default:
		out = append(out, doctor.Check{Name: "git", Status: doctor.OK, Detail: fmt.Sprintf("on %s at %s", branch.Short(), head.String()[:12])})
	}
	out = append(out, r.layoutCheck())
	if info := r.Local().LockState(); info.Held {
		out = append(out, doctor.Check{Name: "lock", Status: doctor.Warn, Detail: fmt.Sprintf("held by pid %d since %s", info.PID, info.When),
			Hint: "another megagit process is writing; the kernel frees the lock when it exits"})
	} else {
		out = append(out, doctor.Check{Name: "lock", Status: doctor.OK, Detail: "free"})
	}
	if _, err := os.Stat(r.journalPath()); err == nil {
		out = append(out, doctor.Check{Name: "journal", Status: doctor.Fail, Detail: "an interrupted write is waiting to be finished",
			Hint: "run `megagit doctor --fix` (any megagit write finishes it too)"})
	} else {
		out = append(out, doctor.Check{Name: "journal", Status: doctor.OK, Detail: "no interrupted write"})
	}
	attrs, _ := os.ReadFile(r.abs(".gitattributes"))
	if r.ref != "" { // the registry branch's own, not the project's
		tree, _ := r.CommitTree(head)
		attrs, _, _ = r.blobAt(tree, ".gitattributes")
	}
	if hasLine(string(attrs), ledgerUnionRule) {
		out = append(out, doctor.Check{Name: "gitattributes", Status: doctor.OK, Detail: "ledgers merge with merge=union under plain git"})
	} else {
		out = append(out, doctor.Check{Name: "gitattributes", Status: doctor.Warn, Detail: ".gitattributes lacks `.megagit/ledger/*.jsonl merge=union`",
			Hint: "add that line so a plain `git pull` never conflicts on ledgers"})
	}
	return out
}

// debrisRE matches the temp files of atomic writes (".SKILL.md.tmp-123"):
// a process killed between writing one and renaming it leaves it behind.
var debrisRE = lazyRE(`^\..+\.tmp-?[0-9]+$`)

// TempDebris lists leftover temp files of interrupted atomic writes in the
// registry (registry-relative paths), skipping .git.
func (r *Registry) TempDebris() []string {
	var out []string
	_ = filepath.WalkDir(r.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && debrisRE().MatchString(d.Name()) {
			if rel, err := filepath.Rel(r.root, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// RemoveTempDebris deletes what TempDebris lists, under the registry lock so
// no live writer's temp file is taken.
func (r *Registry) RemoveTempDebris() ([]string, error) {
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	debris := r.TempDebris()
	for _, p := range debris {
		if err := os.Remove(r.abs(p)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return debris, nil
}

func debrisCheck(debris []string) doctor.Check {
	if len(debris) == 0 {
		return doctor.Check{Name: "debris", Status: doctor.OK, Detail: "no temp files of interrupted writes"}
	}
	return doctor.Check{Name: "debris", Status: doctor.Fail,
		Detail: fmt.Sprintf("%d temp file(s) of interrupted writes: %s", len(debris), strings.Join(debris, ", ")),
		Hint:   "run `megagit doctor --fix` to remove them"}
}
