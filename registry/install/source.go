package install

import (
	"time"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/regsync"
	"github.com/megagit/megagit/registry/skillslock"
)

// FromSource reads each chosen skill's files from the source (within one
// budget of files and bytes) and makes them the items `megagit skill
// install` commits, each with megagit audit's findings in its files. A
// skill installed again from its source keeps the way it was first chosen
// (mode): --all over a skill installed by name changes no file.
func FromSource(reg *registry.Registry, src *regsync.Source, chosen []regsync.FoundSkill, mode string) ([]Install, [][]audit.Finding, error) {
	items := make([]Install, 0, len(chosen))
	budget := regsync.NewBudget()
	for _, c := range chosen {
		files, exec, err := src.Files(c.Path, budget)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, Install{Name: c.Name, Files: files, Exec: exec, Entry: skillslock.Entry{
			Source: src.URL, Ref: src.Ref, Commit: src.Commit.String(), CommitTime: src.Time.UTC().Format(time.RFC3339), Path: c.Path,
			RefKind: src.RefKind, Mode: mode,
		}})
	}
	if lock, err := reg.ReadLock(); err == nil {
		for i, it := range items {
			if old, ok := lock.Skills[it.Name]; ok && old.Source == it.Entry.Source && old.Mode != "" {
				items[i].Entry.Mode = old.Mode
			}
		}
	}
	findings := make([][]audit.Finding, len(items))
	for i, it := range items {
		findings[i] = audit.Files(it.Files)
		if findings[i] == nil {
			findings[i] = []audit.Finding{}
		}
	}
	return items, findings, nil
}
