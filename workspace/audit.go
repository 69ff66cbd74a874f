package workspace

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/skillfile"
)

// Audited is one skill's audit, its files named as lint names them.
type Audited struct {
	Skill    string          `json:"skill"`
	Kind     string          `json:"source"`
	Findings []audit.Finding `json:"findings"`
}

// Audit reads what every skill routing reads (the catalog, shadowed
// skills included: a name can change which one wins) puts in front of the
// agent; names, when given, choose skills by name (each must be one).
// Each finding's file is the skill's folder, as lint names it, joined
// with the file in it.
func (w *Workspace) Audit(names []string) ([]Audited, error) {
	c, err := w.Catalog()
	if err != nil {
		return nil, err
	}
	all := append(append([]*Sourced(nil), c.Skills...), c.Shadowed...)
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var chosen []*Sourced
	found := map[string]bool{}
	for _, s := range all {
		if len(want) == 0 || want[s.Name] {
			found[s.Name] = true
			chosen = append(chosen, s)
		}
	}
	for _, n := range names {
		if !found[n] {
			return nil, fmt.Errorf("%w: no skill %q", registry.ErrNotFound, n)
		}
	}
	return w.audit(chosen), nil
}

// audit audits each skill's folder, by name.
func (w *Workspace) audit(skills []*Sourced) []Audited {
	var out []Audited
	for _, s := range skills {
		dir := path.Dir(filepath.ToSlash(w.fileName(s)))
		fs := audit.Skill(filepath.Dir(s.AbsPath))
		for i := range fs {
			fs[i].File = path.Join(dir, fs[i].File)
		}
		out = append(out, Audited{Skill: s.Name, Kind: s.Kind, Findings: fs})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	return out
}

// auditProblems are the audit's findings as lint reports them: high an
// error, medium a warning, low left to `megagit audit`.
func auditProblems(as []Audited) []skillfile.Problem {
	var ps []skillfile.Problem
	for _, a := range as {
		for _, f := range a.Findings {
			sev := skillfile.SeverityWarning
			switch f.Severity {
			case audit.High:
				sev = skillfile.SeverityError
			case audit.Low:
				continue
			}
			ps = append(ps, skillfile.Problem{File: f.File, Line: f.Line, Field: "audit:" + f.Rule, Severity: sev,
				Message: string(f.Severity) + ": " + f.Message})
		}
	}
	return ps
}
