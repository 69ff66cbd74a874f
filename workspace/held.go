package workspace

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
)

// Trust at injection time: a skill the audit finds a high finding in, or
// an installed skill whose files no longer match .megagit/skills.lock, is
// held back (Sourced.Untrusted, ranker.Doc.Held): ranked and listed,
// never injected or handed to the model, until the user's own config
// allows it (audit.allow, SKILL:RULE) or the skill is installed again.
// It is worked out whenever the skills are read (Catalog), so the
// compiled index carries it and the prompt hook pays nothing for it.

// Hold is why one skill is held back.
type Hold struct {
	// Findings are the high audit findings no allow names.
	Findings []audit.Finding `json:"findings,omitempty"`
	// Drift is how the installed skill's files differ from the lock,
	// when no allow names lock-drift for it.
	Drift *skillslock.FileDiff `json:"lock_drift,omitempty"`
}

// auditCacheFile keeps each skill folder's findings by the folder's
// stamp (audit.Stamp) in .megagit/local/: the audit of a large catalog
// takes seconds, its stamps milliseconds.
const auditCacheFile = "audit-cache.json"

// auditCacheFormat changes with the audit's rules, so a cache of older
// findings is not read.
const auditCacheFormat = 1

type auditCache struct {
	Format  int                    `json:"format"`
	Rules   string                 `json:"rules"`
	Folders map[string]auditCached `json:"folders"`
}

type auditCached struct {
	Stamp    string          `json:"stamp"`
	Findings []audit.Finding `json:"findings"`
}

// rulesKey names the audit's rules as this megagit has them.
func rulesKey() string {
	h := fnv.New64a()
	for _, r := range audit.Rules {
		fmt.Fprintf(h, "%s %s %s\n", r.ID, r.Max, r.Doc)
	}
	return fmt.Sprintf("%x", h.Sum64())
}

// auditor audits skill folders through the cache.
type auditor struct {
	dir     local.Dir
	cache   auditCache
	changed bool
}

func (w *Workspace) newAuditor() *auditor {
	a := &auditor{dir: w.Reg.Local()}
	if data, err := a.dir.Read(auditCacheFile); err == nil {
		_ = json.Unmarshal(data, &a.cache) // a broken cache is an empty one
	}
	if a.cache.Format != auditCacheFormat || a.cache.Rules != rulesKey() || a.cache.Folders == nil {
		a.cache = auditCache{Format: auditCacheFormat, Rules: rulesKey(), Folders: map[string]auditCached{}}
	}
	return a
}

// findings are the audit's findings of the skill folder dir (absolute).
func (a *auditor) findings(dir string) []audit.Finding {
	stamp := audit.Stamp(dir)
	if c, ok := a.cache.Folders[dir]; ok && c.Stamp == stamp {
		return c.Findings
	}
	fs := audit.Skill(dir)
	a.cache.Folders[dir] = auditCached{Stamp: stamp, Findings: fs}
	a.changed = true
	return fs
}

// save writes the cache back when it changed, leaving out the folders
// not seen (seen: the folders audited this call, when it read them all).
func (a *auditor) save(seen map[string]bool) {
	if seen != nil {
		for dir := range a.cache.Folders {
			if !seen[dir] {
				delete(a.cache.Folders, dir)
				a.changed = true
			}
		}
	}
	if !a.changed {
		return
	}
	if data, err := json.Marshal(a.cache); err == nil {
		_ = a.dir.WriteCache(auditCacheFile, data) // a cache not written is audited again
	}
}

// hold works out whether each routable skill of skills is held back:
// HeldRules the rules that would (the compiled index keeps them, and the
// allows are applied per prompt, route.HeldMask), Untrusted and Hold
// what still does under the config's audit.allow; all says skills are the whole catalog
// (the cache then forgets the folders no longer read).
func (w *Workspace) hold(skills []*Sourced, all bool) {
	a := w.newAuditor()
	seen := map[string]bool{}
	locks := map[*registry.Registry]*skillslock.Lock{}
	for _, s := range skills {
		if s.Skill == nil || !s.Routable() {
			continue
		}
		dir := filepath.Dir(s.AbsPath)
		seen[dir] = true
		h := &Hold{}
		s.HeldRules = nil
		add := func(rule string) bool {
			if !slices.Contains(s.HeldRules, rule) {
				s.HeldRules = append(s.HeldRules, rule)
			}
			return !route.Allowed(w.Cfg.Audit.Allow, s.Name, rule)
		}
		for _, f := range audit.Blocking(a.findings(dir), nil) {
			if add(f.Rule) {
				f.File = path.Join(path.Dir(filepath.ToSlash(w.fileName(s))), f.File)
				h.Findings = append(h.Findings, f)
			}
		}
		if d := w.lockDrift(s, locks); d != nil && add(audit.RuleLockDrift) {
			h.Drift = d
		}
		s.Hold, s.Untrusted = nil, ""
		if len(h.Findings) > 0 || h.Drift != nil {
			s.Hold, s.Untrusted = h, h.reason(s.Name)
		}
	}
	if !all {
		seen = nil
	}
	a.save(seen)
}

// lockDrift is how an installed skill's files differ from its owner's
// lock (nil: they match, or the skill was not installed).
func (w *Workspace) lockDrift(s *Sourced, locks map[*registry.Registry]*skillslock.Lock) *skillslock.FileDiff {
	if s.Owner == nil || s.NativeKey != "" || s.Plugin != "" {
		return nil
	}
	l, ok := locks[s.Owner]
	if !ok {
		if lock, err := s.Owner.ReadLock(); err == nil {
			l = &lock
		}
		locks[s.Owner] = l // a lock that does not read is doctor's to report
	}
	if l == nil {
		return nil
	}
	e, ok := l.Skills[s.Name]
	if !ok {
		return nil
	}
	here, err := install.LocalFiles(s.Owner, s.Name)
	if err != nil {
		return nil
	}
	if d := skillslock.DiffHashes(e.Files, here); !d.Empty() {
		return &d
	}
	return nil
}

// reason is the hold in one line, with the way out.
func (h *Hold) reason(name string) string {
	var parts, rules []string
	if n := len(h.Findings); n > 0 {
		f := h.Findings[0]
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (and %d more high finding(s))", n-1)
		}
		parts = append(parts, fmt.Sprintf("the audit finds %s in %s:%d%s", f.Rule, f.File, f.Line, more))
		seen := map[string]bool{}
		for _, f := range h.Findings {
			if !seen[f.Rule] {
				seen[f.Rule] = true
				rules = append(rules, name+":"+f.Rule)
			}
		}
	}
	if d := h.Drift; d != nil {
		parts = append(parts, fmt.Sprintf("its files differ from %s (%s): `megagit skill update --force %s` takes its source's files again", skillslock.File, d.Describe(3), name))
		rules = append(rules, name+":"+audit.RuleLockDrift)
	}
	return strings.Join(parts, "; ") + fmt.Sprintf("; or allow it in your own config: audit.allow: [%s] (`megagit audit %s` shows every finding)", strings.Join(rules, ", "), name)
}

// lockedFiles are the roots that tell the compiled index an installed
// skill changed where SKILL.md's stamp would not: the lock and each
// installed skill's folder (index.FileRoot: a file added or removed), and
// every file the lock hashes (index.CheckRoot: an edit in place, seen by
// the check the prompt hook runs after a prompt, not by every prompt).
func (w *Workspace) lockedFiles() []string {
	out := []string{index.FileRoot(filepath.Join(w.Reg.Root(), filepath.FromSlash(skillslock.File)))}
	lock, err := w.Reg.ReadLock()
	if err != nil || len(lock.Skills) == 0 {
		return out
	}
	files, err := w.Reg.SkillFiles()
	if err != nil {
		return out
	}
	for _, name := range lock.Names() {
		rel, ok := files[name]
		if !ok {
			continue
		}
		dir := filepath.Dir(w.abs(rel))
		out = append(out, index.FileRoot(dir))
		for _, f := range slices.Sorted(maps.Keys(lock.Skills[name].Files)) {
			out = append(out, index.CheckRoot(filepath.Join(dir, filepath.FromSlash(f))))
		}
	}
	return out
}
