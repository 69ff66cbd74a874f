package registry

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/registry/skillslock"
)

// InstalledState compares the lockfile with the registry: the installed
// skills the registry no longer holds (deleted by hand or with plain git:
// their lock entries are stale) and those edited here since they were
// installed (`skill update` refuses to overwrite them without --force).
func (r *Registry) InstalledState() (lock skillslock.Lock, missing, edited []string, err error) {
	if lock, err = r.ReadLock(); err != nil {
		return lock, nil, nil, err
	}
	for _, name := range lock.Names() {
		here, err := r.LocalFiles(name)
		if errors.Is(err, ErrNotFound) {
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

// installedCheck is doctor's look at .megagit/skills.lock.
func (r *Registry) installedCheck() doctor.Check {
	const name = "installed"
	lock, missing, edited, err := r.InstalledState()
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

// ForgetMissingInstalls drops from the lockfile, in one commit, the
// entries of skills the registry no longer holds; it returns their names
// (none: nothing written).
func (r *Registry) ForgetMissingInstalls() ([]string, plumbing.Hash, error) {
	var gone []string
	hash, err := r.writeLockedRaw(func() (string, []Change, error) {
		lock, missing, _, err := r.InstalledState()
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
		return msg, []Change{{Path: skillslock.File, Data: lock.Format()}}, nil
	})
	return gone, hash, err
}
