package registry

import (
	"path"

	"github.com/megagit/megagit/local"

	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
)

// LocalFile reads file rel (slash-separated, relative to the skill's
// folder) of skill name as the lock compares it: a SKILL.md without its
// evidence (mega_meta), which an update keeps.
func (r *Registry) LocalFile(name, rel string) ([]byte, error) {
	s, err := r.Skill(name)
	if err != nil {
		return nil, err
	}
	data, err := r.readCapped(path.Join(path.Dir(s.Path), rel), maxImportFile)
	if err != nil {
		return nil, err
	}
	if rel == "SKILL.md" {
		if f, err := skillfile.Parse(rel, data); err == nil {
			if bare, err := f.WithoutEvidence(); err == nil {
				data = bare
			}
		}
	}
	return data, nil
}

// ReadSkillFile reads registry file rel as a skill's file is read (inside
// the registry, capped at the largest file an import copies).
func (r *Registry) ReadSkillFile(rel string) ([]byte, error) { return r.readCapped(rel, maxImportFile) }

// dropLockEntry is the change that removes name's lock entry, or none when
// the lock has no such entry.
func (r *Registry) dropLockEntry(name string) ([]Change, error) {
	lock, err := r.ReadLock()
	if err != nil {
		return nil, err
	}
	if _, ok := lock.Skills[name]; !ok {
		return nil, nil
	}
	delete(lock.Skills, name)
	return []Change{{Path: skillslock.File, Data: lock.Format()}}, nil
}

// NestedMetaDir says why a skill may not carry a .megagit folder.
const NestedMetaDir = "a skill may not hold a " + local.MetaDir + " folder (megagit run in the skill's folder would take it for a registry)"
