package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/skillfile"
)

// Sourced is a skill with where it comes from.
type Sourced struct {
	*registry.Skill
	// Kind is KindProject, KindUser or KindTeam.
	Kind string
	// Folder is the folder holding the skill's folder: registry-relative
	// (slash form) for a skill of the registry, else absolute.
	Folder string
	// AbsPath is its SKILL.md, absolute.
	AbsPath string
	// Owner is the registry its verdicts are recorded in: the one holding
	// it, or for a read-only skill the user registry (UserRegistry).
	Owner *registry.Registry
	// NativeKey is set for a read-only skill (a folder outside any
	// registry): its evidence's key in Owner (registry.NativeKey).
	NativeKey string
	// Ledger is its verdicts.
	Ledger []ledger.Entry
	// ShadowedBy is, for a skill not used, the SKILL.md of the one of the
	// same name that wins.
	ShadowedBy string
	// Agent is the agent whose native folder holds the skill (claude,
	// codex, gemini; "" for a registry's skill).
	Agent string
	// Plugin is, for a skill of a Claude Code plugin, the plugin's id
	// (name@marketplace); its Name is "plugin:skill".
	Plugin string
	// UserOnly says why the agent keeps the skill from the model (its
	// author or user made it theirs to run): it is never routed. "" when
	// the model may pick it.
	UserOnly string
	// Held says why the skill's rules cannot be read (a paths: that is not
	// a list of globs, an unreadable agents/openai.yaml): it is then not
	// routed either.
	Held string
	// Denied is the name or glob of the config's deny: list that names
	// the skill: it is ranked but never emitted (route.Settings.Deny).
	Denied string
	// Forced is the name or glob of the config's force: list that names
	// it: emitted whenever a prompt matches it (route.Settings.Force).
	Forced string
	// Paths are its paths globs (Claude Code's paths:): it is routed only
	// where one matches.
	Paths []string
	// Untrusted says why the skill is held back (a high audit finding, an
	// installed skill's files that differ from the lock; Hold the
	// details): ranked, never emitted, until the user's own config allows
	// it (held.go). "" for a skill that may be injected.
	Untrusted string
	Hold      *Hold
	// HeldRules are the rules that hold it back before any allow (an
	// audit rule, lock-drift): ranker.Doc.Held.
	HeldRules []string
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
		c.add(byName, &Sourced{Skill: s, Kind: KindProject, Folder: path.Dir(path.Dir(s.Path)), AbsPath: w.abs(s.Path),
			Owner: w.Reg, Ledger: ledgers[s.Name]})
	}
	w.others(c, byName)
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	w.rules(c)
	w.hold(c.Skills, true)
	return c, nil
}

// rules applies the agents' rules (applyRules) to every skill read.
func (w *Workspace) rules(c *Catalog) {
	rules, problems := w.AgentRules()
	c.Problems = append(c.Problems, problems...)
	for _, s := range c.Skills {
		if s.Skill != nil {
			applyRules(s, rules)
			s.Denied = route.MatchName(w.Cfg.Deny, s.Name)
			s.Forced = route.MatchName(w.Cfg.Force, s.Name)
		}
	}
	for _, s := range c.Shadowed {
		applyRules(s, rules)
	}
}

// Others is the Catalog without the registry's own skills, which it does
// not parse: the skills of the other sources whose names the registry
// does not hold (the others are in Shadowed), for a caller that knows
// what to do with the registry's own skills (a verdict on one).
func (w *Workspace) Others() (*Catalog, error) {
	files, err := w.Reg.SkillFiles()
	if err != nil {
		return nil, err
	}
	c := &Catalog{}
	byName := make(map[string]*Sourced, len(files))
	for name, rel := range files {
		byName[name] = &Sourced{AbsPath: w.abs(rel)}
	}
	w.others(c, byName)
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	w.rules(c)
	return c, nil // not audited: a verdict (the stop hook) needs no hold
}

// add adds s to the catalog: used, or shadowed by the skill of its name
// in byName.
func (c *Catalog) add(byName map[string]*Sourced, s *Sourced) {
	if win, ok := byName[s.Name]; ok {
		s.ShadowedBy = win.AbsPath
		c.Shadowed = append(c.Shadowed, s)
		return
	}
	byName[s.Name] = s
	c.Skills = append(c.Skills, s)
}

// others adds the skills of the project's native folders, the user
// registry's, those of the user's native folders, the plugins', then the
// team registry's.
func (w *Workspace) others(c *Catalog, byName map[string]*Sourced) {
	user := w.UserRegistry()
	folders := w.NativeFolders()
	for _, f := range folders {
		if f.Kind == KindProject {
			w.nativeSkills(c, byName, f, user)
		}
	}
	w.personalSkills(c, byName)
	for _, f := range folders {
		if f.Kind == KindUser {
			w.nativeSkills(c, byName, f, user)
		}
	}
	w.pluginSkills(c, byName, user)
	team, err := w.Team()
	if err != nil {
		c.Problems = append(c.Problems, err)
	}
	if team == nil {
		return
	}
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
		c.add(byName, &Sourced{Skill: s, Kind: KindTeam, Folder: filepath.Dir(filepath.Dir(file)), AbsPath: file, Owner: team.Reg, Ledger: tl[s.Name]})
	}
}

// nativeSkills adds the skills of an agent's native folder, read-only:
// their evidence is in the user registry (NativeLedger).
func (w *Workspace) nativeSkills(c *Catalog, byName map[string]*Sourced, f Folder, user *registry.Registry) {
	load := registry.LoadDir // a project's folder may come from anyone's commit
	if f.Kind == KindUser {
		load = registry.LoadOwnDir
	}
	skills, problems, err := load(f.Dir)
	if err != nil {
		c.Problems = append(c.Problems, fmt.Errorf("%s: %w", describe(f.Dir), err))
		return
	}
	for _, p := range problems {
		c.Problems = append(c.Problems, fmt.Errorf("%s: %w", describe(f.Dir), p))
	}
	for _, s := range skills {
		file := filepath.Join(f.Dir, filepath.FromSlash(s.Path))
		s.Path = file
		key := registry.NativeKey(s.Name, s.File.Raw())
		entries, err := w.NativeLedger(key)
		if err != nil {
			c.Problems = append(c.Problems, err)
		}
		s.Evidence = registry.NativeEvidence(entries)
		c.add(byName, &Sourced{Skill: s, Kind: f.Kind, Folder: f.Dir, AbsPath: file, Owner: user, NativeKey: key, Ledger: entries, Agent: f.Agent})
	}
}

// personalSkills adds the user registry's skills (the personal skills
// adopt took), as user skills: their verdicts go to the user registry.
func (w *Workspace) personalSkills(c *Catalog, byName map[string]*Sourced) {
	if !w.Cfg.Sources.User {
		return
	}
	u, err := w.Personal()
	if err != nil {
		c.Problems = append(c.Problems, err)
	}
	if u == nil {
		return
	}
	skills, problems, err := u.Reg.Skills()
	if err != nil {
		c.Problems = append(c.Problems, fmt.Errorf("user registry %s: %w", u.Reg.Root(), err))
	}
	for _, p := range problems {
		c.Problems = append(c.Problems, fmt.Errorf("user registry %s: %w", u.Reg.Root(), p))
	}
	ledgers, err := u.Reg.Ledgers()
	if err != nil {
		c.Problems = append(c.Problems, fmt.Errorf("user registry %s: %w", u.Reg.Root(), err))
	}
	for _, s := range skills {
		file := u.abs(s.Path)
		s.Path = file
		c.add(byName, &Sourced{Skill: s, Kind: KindUser, Folder: filepath.Dir(filepath.Dir(file)), AbsPath: file, Owner: u.Reg, Ledger: ledgers[s.Name]})
	}
}

// pluginSkills adds the skills of Claude Code's enabled plugins, named
// "plugin:skill", read-only: their evidence goes to the user registry, as
// a native folder's.
func (w *Workspace) pluginSkills(c *Catalog, byName map[string]*Sourced, user *registry.Registry) {
	plugins, problems := w.Plugins()
	c.Problems = append(c.Problems, problems...)
	for _, p := range plugins {
		skills, problems, err := registry.LoadOwnDir(p.Dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("plugin %s: %s: %w", p.ID, describe(p.Dir), err))
			continue
		}
		for _, pr := range problems {
			c.Problems = append(c.Problems, fmt.Errorf("plugin %s: %s: %w", p.ID, describe(p.Dir), pr))
		}
		for _, s := range skills {
			file := filepath.Join(p.Dir, filepath.FromSlash(s.Path))
			s.Path = file
			s.Name = p.Name + ":" + s.Name
			key := registry.NativeKey(s.Name, s.File.Raw())
			entries, err := w.NativeLedger(key)
			if err != nil {
				c.Problems = append(c.Problems, err)
			}
			s.Evidence = registry.NativeEvidence(entries)
			c.add(byName, &Sourced{Skill: s, Kind: KindPlugin, Folder: p.Dir, AbsPath: file, Owner: user, NativeKey: key,
				Ledger: entries, Agent: "claude", Plugin: p.ID})
		}
	}
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
	var err error
	if strings.Contains(name, ":") { // a plugin's skill: never the registry's
		if err := skillfile.ValidateRef(name); err != nil {
			return nil, err
		}
		err = fmt.Errorf("%w: skill %q (no enabled Claude Code plugin has it)", registry.ErrNotFound, name)
	} else {
		var s *registry.Skill
		s, err = w.Reg.Skill(name)
		if err == nil {
			ledger, err := w.Reg.Ledger(name)
			if err != nil {
				return nil, err
			}
			src := &Sourced{Skill: s, Kind: KindProject, Folder: path.Dir(path.Dir(s.Path)), AbsPath: w.abs(s.Path), Owner: w.Reg, Ledger: ledger}
			applyRules(src, AgentRules{})
			src.Denied, src.Forced = route.MatchName(w.Cfg.Deny, name), route.MatchName(w.Cfg.Force, name)
			w.hold([]*Sourced{src}, false)
			return src, nil
		}
		if !errors.Is(err, registry.ErrNotFound) {
			return nil, err
		}
	}
	c, cerr := w.Others()
	if cerr != nil {
		return nil, cerr
	}
	if o := c.Lookup(name); o != nil {
		w.hold([]*Sourced{o}, false)
		return o, nil
	}
	return nil, err
}
