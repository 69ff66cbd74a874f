package workspace

import (
	"path/filepath"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/skillfile"
)

// Lint checks every SKILL.md that routing reads, wherever it comes from:
// the registry's roots (files named registry-relative), the agents'
// native folders, the enabled plugins' skills and the team registry's
// roots (named as Describe names them); then what the agents' rules ask
// of each skill that parses (its paths globs), the files those rules are
// read from (Gemini CLI's settings, Claude Code's plugin record), and the
// skills shadowed by another of their name (identical or not); the pairs
// of routed skills that say the same thing (Duplicates), as warnings;
// and what the audit finds in each skill's folder (audit.Skill: high an
// error, medium a warning).
// checked counts the SKILL.md
// files read, as route sees them.
func (w *Workspace) Lint() (problems []skillfile.Problem, checked int) {
	problems, checked = w.Reg.Lint(w.Cfg.Roots)
	add := func(ps []skillfile.Problem, n int) {
		for _, p := range ps {
			p.File = describe(p.File)
			problems = append(problems, p)
		}
		checked += n
	}
	for _, f := range w.NativeFolders() {
		add(registry.LintDir(f.Dir, f.Kind == KindUser))
	}
	plugins, perrs := w.Plugins()
	for _, p := range plugins {
		add(registry.LintDir(p.Dir, true))
	}
	var uerr error
	if w.Cfg.Sources.User {
		var user *Workspace
		user, uerr = w.Personal()
		if user != nil {
			add(user.lintRoots())
		}
	}
	team, terr := w.Team()
	if team != nil {
		add(team.lintRoots())
	}
	fileProblem := func(err error) {
		problems = append(problems, skillfile.Problem{Field: "file", Severity: skillfile.SeverityError, Message: err.Error()})
	}
	for _, err := range perrs {
		fileProblem(err)
	}
	if terr != nil {
		fileProblem(terr)
	}
	if uerr != nil {
		fileProblem(uerr)
	}
	_, gerrs := w.AgentRules()
	for _, err := range gerrs {
		fileProblem(err)
	}
	c, err := w.Catalog()
	if err != nil {
		fileProblem(err)
		return problems, checked
	}
	for _, s := range append(append([]*Sourced(nil), c.Skills...), c.Shadowed...) {
		paths, err := s.File.Paths()
		if err != nil {
			continue // skillfile.Lint said so
		}
		if err := route.CheckGlobs(paths); err != nil {
			problems = append(problems, skillfile.Problem{File: w.fileName(s), Field: "paths", Severity: skillfile.SeverityError,
				Message: err.Error() + " (the skill is not routed)"})
		}
	}
	problems = append(problems, auditProblems(w.audit(append(append([]*Sourced(nil), c.Skills...), c.Shadowed...)))...)
	for _, sh := range c.Shadowed {
		problems = append(problems, w.shadowProblem(sh, c))
	}
	problems = append(problems, w.duplicateProblems(c)...)
	for _, d := range w.PrecedenceDiffs(c) {
		problems = append(problems, skillfile.Problem{File: describe(d.Agent), Field: "name", Severity: skillfile.SeverityWarning, Message: d.String()})
	}
	return problems, checked
}

// fileName names a skill's SKILL.md as Lint names files: registry-relative
// for the registry's own, else as Describe does.
func (w *Workspace) fileName(s *Sourced) string {
	if s.Owner == w.Reg && s.NativeKey == "" {
		if rel, err := filepath.Rel(w.Reg.Root(), s.AbsPath); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return describe(s.AbsPath)
}

// lintRoots lints another registry's roots (the team's, the user's), its
// files named absolute.
func (w *Workspace) lintRoots() ([]skillfile.Problem, int) {
	ps, n := w.Reg.Lint(w.Cfg.Roots)
	for i := range ps {
		ps[i].File = filepath.Join(w.Reg.Root(), filepath.FromSlash(ps[i].File))
	}
	return ps, n
}
