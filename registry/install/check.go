package install

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/skillslock"
)

// State compares the lockfile with the registry: the installed
// skills the registry no longer holds (deleted by hand or with plain git:
// their lock entries are stale) and those edited here since they were
// installed (`skill update` refuses to overwrite them without --force).
func State(r *registry.Registry) (lock skillslock.Lock, missing, edited []string, err error) {
	if lock, err = r.ReadLock(); err != nil {
		return lock, nil, nil, err
	}
	for _, name := range lock.Names() {
		here, err := LocalFiles(r, name)
		if errors.Is(err, errkind.ErrNotFound) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			return lock, nil, nil, err
		}
		if !skillslock.DiffHashes(lock.Skills[name].Files, here).Empty() {
			edited = append(edited, name)
		}
	}
	return lock, missing, edited, nil
}

// Check is doctor's look at .megagit/skills.lock.
func Check(r *registry.Registry) doctor.Check {
	const name = "installed"
	lock, missing, edited, err := State(r)
	if err != nil {
		return doctor.Check{Name: name, Status: doctor.Fail, Detail: err.Error(),
			Hint: "fix " + skillslock.File + " by hand, or `git checkout` its last good version"}
	}
	n := len(lock.Skills)
	if n == 0 {
		return doctor.Check{Name: name, Status: doctor.OK, Detail: "no skill installed from git"}
	}
	sources := map[string]bool{}
	for _, e := range lock.Skills {
		sources[e.Source] = true
	}
	detail := fmt.Sprintf("%d skill(s) installed from %d source(s)", n, len(sources))
	if len(edited) > 0 {
		detail += fmt.Sprintf("; %d edited here since installed (skill update keeps them unless --force): %s", len(edited), strings.Join(edited, ", "))
	}
	if len(missing) > 0 {
		return doctor.Check{Name: name, Status: doctor.Warn,
			Detail: detail + fmt.Sprintf("; %d in %s but not in the registry: %s", len(missing), skillslock.File, strings.Join(missing, ", ")),
			Hint:   "`megagit doctor --fix` drops their entries from " + skillslock.File + " (or `megagit skill install SOURCE NAME` puts a skill back)"}
	}
	return doctor.Check{Name: name, Status: doctor.OK, Detail: detail}
}

// ForgetMissing drops from the lockfile, in one commit, the
// entries of skills the registry no longer holds; it returns their names
// (none: nothing written).
func ForgetMissing(r *registry.Registry) ([]string, gitstore.Hash, error) {
	var gone []string
	hash, err := r.Write(func() (string, []registry.Change, error) {
		lock, missing, _, err := State(r)
		if err != nil || len(missing) == 0 {
			return "", nil, err
		}
		sort.Strings(missing)
		for _, m := range missing {
			delete(lock.Skills, m)
		}
		gone = missing
		msg := fmt.Sprintf("skills: forget %s (no longer in the registry)\n\nMegagit-Action: forget\n", strings.Join(missing, ", "))
		for _, m := range missing {
			msg += "Megagit-Skill: " + m + "\n"
		}
		return msg, []registry.Change{{Path: skillslock.File, Data: lock.Format()}}, nil
	})
	return gone, hash, err
}

// Drift is how one installed skill differs from its lock entry
// (`megagit skill verify`): gone from the registry, its files changed,
// added or removed, or an entry that names no commit.
type Drift struct {
	Name    string              `json:"name"`
	Source  string              `json:"source"`
	Ref     string              `json:"ref"`
	Commit  string              `json:"commit"`
	Missing bool                `json:"missing"`
	Files   skillslock.FileDiff `json:"files"`
	// Problem is what is wrong with the lock entry itself ("" when
	// nothing is).
	Problem string `json:"problem,omitempty"`
}

// OK says whether the skill is as its lock entry says.
func (d Drift) OK() bool { return !d.Missing && d.Files.Empty() && d.Problem == "" }

// Verify compares every installed skill (or those named, each of which
// must be in the lock) with .megagit/skills.lock: the files of its folder
// as they are on disk, by sha256 (SKILL.md without its evidence), and
// the entry's commit. Sorted by name.
func Verify(r *registry.Registry, names []string) ([]Drift, error) {
	lock, err := r.ReadLock()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = lock.Names()
	}
	out := make([]Drift, 0, len(names))
	for _, name := range names {
		e, ok := lock.Skills[name]
		if !ok {
			return nil, fmt.Errorf("%w: skill %q is not in %s (it was not installed with `megagit skill install`)", errkind.ErrNotFound, name, skillslock.File)
		}
		d := Drift{Name: name, Source: e.Source, Ref: e.Ref, Commit: e.Commit, Files: skillslock.FileDiff{Added: []string{}, Removed: []string{}, Changed: []string{}}}
		if !gitstore.IsHash(e.Commit) {
			d.Problem = fmt.Sprintf("its entry's commit %q is not a commit id", e.Commit)
		}
		here, err := LocalFiles(r, name)
		switch {
		case errors.Is(err, errkind.ErrNotFound):
			d.Missing = true
		case err != nil:
			return nil, err
		default:
			d.Files = skillslock.DiffHashes(e.Files, here)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
