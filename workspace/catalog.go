package workspace

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"

	"github.com/megagit/megagit/registry"
)

// Sourced is a skill with where it comes from.
type Sourced struct {
	*registry.Skill
	// Kind is KindProject, KindUser or KindTeam.
	Kind string
	// Folder is the folder holding the skill's folder: registry-relative
	// (slash form) for a skill of the registry, else absolute.
	Folder string
	// File is its SKILL.md, absolute.
	File string
	// Owner is the registry its verdicts are recorded in: the one holding
	// it, or for a read-only skill the user registry (UserRegistry).
	Owner *registry.Registry
	// NativeKey is set for a read-only skill (a folder outside any
	// registry): its evidence's key in Owner (registry.NativeKey).
	NativeKey string
	// Ledger is its verdicts.
	Ledger []registry.Entry
	// ShadowedBy is, for a skill not used, the SKILL.md of the one of the
	// same name that wins.
	ShadowedBy string
}

// Catalog is every skill the workspace reads, merged by name.
type Catalog struct {
	// Skills are the skills used, sorted by name.
	Skills []*Sourced
	// Shadowed are the skills of a name a source of higher precedence
	// also defines, in precedence order.
	Shadowed []*Sourced
	// Problems are the skills that did not parse and the sources that
	// could not be read.
	Problems []error
}

// Catalog reads the registry's skills and those of every other source,
// and merges them by name: project (the registry's roots, then the
// project's native folders) over user (the user-level native folders)
// over team (the team registry). Only a source that cannot be listed at
// all fails the registry's own; another source's failure is a problem.
func (w *Workspace) Catalog() (*Catalog, error) {
	c := &Catalog{}
	byName := map[string]*Sourced{}
	add := func(s *Sourced) {
		if win, ok := byName[s.Name]; ok {
			s.ShadowedBy = win.File
			c.Shadowed = append(c.Shadowed, s)
			return
		}
		byName[s.Name] = s
		c.Skills = append(c.Skills, s)
	}

	own, problems, err := w.Reg.Skills()
	if err != nil {
		return nil, err
	}
	c.Problems = append(c.Problems, problems...)
	ledgers, err := w.Reg.Ledgers()
	if err != nil {
		return nil, err
	}
	for _, s := range own {
		add(&Sourced{Skill: s, Kind: KindProject, Folder: path.Dir(path.Dir(s.Path)), File: w.abs(s.Path),
			Owner: w.Reg, Ledger: ledgers[s.Name]})
	}
	user := w.UserRegistry()
	for _, f := range w.NativeFolders() {
		skills, problems, err := registry.LoadDir(f.Dir)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("%s: %w", describe(f.Dir), err))
			continue
		}
		for _, p := range problems {
			c.Problems = append(c.Problems, fmt.Errorf("%s: %w", describe(f.Dir), p))
		}
		for _, s := range skills {
			file := filepath.Join(f.Dir, filepath.FromSlash(s.Path))
			s.Path = file
			key := registry.NativeKey(s.Name, s.File.Raw())
			entries, err := user.NativeLedger(key)
			if err != nil {
				c.Problems = append(c.Problems, err)
			}
			s.Evidence = registry.NativeEvidence(entries)
			add(&Sourced{Skill: s, Kind: f.Kind, Folder: f.Dir, File: file, Owner: user, NativeKey: key, Ledger: entries})
		}
	}
	team, err := w.Team()
	if err != nil {
		c.Problems = append(c.Problems, err)
	}
	if team != nil {
		skills, problems, err := team.Reg.Skills()
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("team registry %s: %w", team.Reg.Root(), err))
		}
		for _, p := range problems {
			c.Problems = append(c.Problems, fmt.Errorf("team registry %s: %w", team.Reg.Root(), p))
		}
		tl, err := team.Reg.Ledgers()
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("team registry %s: %w", team.Reg.Root(), err))
		}
		for _, s := range skills {
			file := team.abs(s.Path)
			s.Path = file
			add(&Sourced{Skill: s, Kind: KindTeam, Folder: filepath.Dir(filepath.Dir(file)), File: file, Owner: team.Reg, Ledger: tl[s.Name]})
		}
	}
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	return c, nil
}

// abs is a registry-relative path of w's registry, absolute.
func (w *Workspace) abs(rel string) string {
	return filepath.Join(w.Reg.Root(), filepath.FromSlash(rel))
}

// Lookup finds a skill of the catalog by name: the one used, else nil.
func (c *Catalog) Lookup(name string) *Sourced {
	i := sort.Search(len(c.Skills), func(i int) bool { return c.Skills[i].Name >= name })
	if i < len(c.Skills) && c.Skills[i].Name == name {
		return c.Skills[i]
	}
	return nil
}

// Skill finds one skill by name among every source: the one used. A name
// no source defines gets the registry's error (an invalid name, a skill
// that does not parse, or not found).
func (w *Workspace) Skill(name string) (*Sourced, error) {
	c, err := w.Catalog()
	if err != nil {
		return nil, err
	}
	if s := c.Lookup(name); s != nil {
		return s, nil
	}
	if _, err = w.Reg.Skill(name); err == nil {
		err = fmt.Errorf("%w: skill %q", registry.ErrNotFound, name)
	}
	return nil, err
}
