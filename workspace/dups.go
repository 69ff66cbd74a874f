package workspace

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/skillfile"
)

// DupWords is the share of description terms (ranker.Jaccard) at which
// two skills are copies whatever the model says: no two of 155,553 pairs
// of distinct real skills reach 0.95 (the highest, convert-pdf-to-md and
// convert-word-to-md, one template with one word changed, is 0.91), while
// a copy with a word or two changed does. A paraphrase shares far fewer
// (0.27 to 0.67 of twelve planted ones): the model's cosine finds those.
const DupWords = 0.95

// Duplicate is two routed skills that say the same thing.
type Duplicate struct {
	// Keep and Drop are the two; Drop is the one of lower precedence
	// (project, user, plugin, team; else the later name), the one Fix
	// removes or turns off.
	Keep, Drop *Sourced
	ranker.DupPair
	// Cut is the cosine the pair was compared against (0: by words only).
	Cut float64
	// Fix is the command that resolves it.
	Fix string
}

// Duplicates finds the pairs of routed skills that say the same thing:
// the active model's cosine of their "name: description" vectors at or
// above lint.duplicate_cosine, else the model's measured duplicate cosine
// (models.Profile.DupCosine), or their descriptions' terms nearly the
// same (DupWords). Lexical routing, or a model with no measured cosine,
// compares words only. Nothing is written (dupVectors).
func (w *Workspace) Duplicates(c *Catalog) []Duplicate {
	docs, vecs, cut := w.dupVectors(c)
	if w.Cfg.Lint.DupCosine > 0 {
		cut = w.Cfg.Lint.DupCosine
	}
	var cos func(a, b int) float64
	if vecs != nil && vecs.Docs() == len(docs) && cut > 0 {
		cos = vecs.Cosine
	}
	byName := make(map[string]*Sourced, len(c.Skills))
	for _, s := range c.Skills {
		byName[s.Name] = s
	}
	var out []Duplicate
	for _, p := range ranker.Duplicates(docs, cos, cut, DupWords) {
		a, b := byName[docs[p.A].ID], byName[docs[p.B].ID]
		if a == nil || b == nil {
			continue
		}
		if rank(b) < rank(a) {
			a, b = b, a
		}
		if cos == nil {
			p.Cosine = 0
		}
		out = append(out, Duplicate{Keep: a, Drop: b, DupPair: p, Cut: cut, Fix: w.dropCommand(b, a.Name)})
	}
	return out
}

// dupVectors are the routed skills, the active model's vectors of them
// and its duplicate cosine, without writing anything: the compiled index's
// documents and stored vectors when it is up to date with the skills and
// holds the model's vectors, else the catalog's skills embedded in memory
// by a static model (milliseconds); an ONNX model's vectors come from the
// compiled index only (nil without one: words only).
func (w *Workspace) dupVectors(c *Catalog) ([]ranker.Doc, *index.Vectors, float64) {
	emb, prof := dense.Model(w.Cfg, w.Reg.Root(), func(string) {})
	if emb == nil {
		return CatalogDocs(c.Skills), nil, 0
	}
	comp, ok := index.ReadCompiled(w.Reg.Local(), index.RankerKey(RankerConfig(w.Cfg)), index.Want{Vectors: true})
	key, err := index.SkillsKey(w.Reg.Root(), w.StampRoots())
	if ok && err == nil && comp.Key == key && comp.Vectors != nil && comp.Vectors.Key == embedcache.CacheKey(emb) {
		return comp.Docs, comp.Vectors, prof.DupCosine
	}
	docs := CatalogDocs(c.Skills)
	if prof.Kind != "static" {
		return docs, nil, 0
	}
	ch, err := dense.New(emb, prof, docs, nil, nil)
	if err != nil {
		return docs, nil, 0
	}
	return docs, ch.Vecs, prof.DupCosine
}

// rank is a skill's source in precedence order (Catalog's merge).
func rank(s *Sourced) int {
	switch s.Kind {
	case KindProject:
		return 0
	case KindUser:
		return 1
	case KindPlugin:
		return 2
	}
	return 3
}

// dropCommand is the command that keeps s from being routed beside keep:
// the registry's own skill is removed (git history keeps it); any other
// (an agent's folder, a plugin, another registry) is turned off.
func (w *Workspace) dropCommand(s *Sourced, keep string) string {
	if s.Owner == w.Reg && s.NativeKey == "" {
		return "megagit skill rm " + s.Name
	}
	return fmt.Sprintf("megagit skill disable %s --reason %q", s.Name, "same as "+keep)
}

// duplicateProblems are lint's warnings of the pairs Duplicates finds,
// each on the skill to drop, naming the other and the command.
func (w *Workspace) duplicateProblems(c *Catalog) []skillfile.Problem {
	dups := w.Duplicates(c)
	out := make([]skillfile.Problem, 0, len(dups))
	for _, d := range dups {
		out = append(out, skillfile.Problem{File: w.fileName(d.Drop), Field: "description", Severity: skillfile.SeverityWarning,
			Message: d.String(w)})
	}
	return out
}

// String says what makes the pair duplicates, where both are and how to
// resolve it.
func (d Duplicate) String(w *Workspace) string {
	why := fmt.Sprintf("their descriptions share %.0f%% of their words", 100*d.Jaccard)
	if d.Cut > 0 && d.Cosine >= d.Cut {
		why = fmt.Sprintf("the model's cosine of the two is %.2f, at or above %.2f", d.Cosine, d.Cut)
	}
	return fmt.Sprintf("skill %q says the same as %q (%s): %s; keep one: %s (or add %s to deny: in .megagit/config.yaml)",
		d.Drop.Name, d.Keep.Name, w.fileName(d.Keep), why, d.Fix, d.Drop.Name)
}

// identical and differs are what ShadowSame says.
const (
	identical = "an identical copy"
	differs   = "its content differs"
)

// ShadowSame says whether a shadowed skill is an identical copy of the
// one that wins (a copy left in two folders: remove one) or differs from
// it (two skills under one name: rename one, or remove one).
func (w *Workspace) ShadowSame(sh *Sourced, c *Catalog) string {
	if win := winner(sh, c); win != nil && win.File != nil && sh.File != nil && bytes.Equal(win.File.Raw(), sh.File.Raw()) {
		return identical
	}
	return differs
}

// winner is the skill that shadows sh (nil when it is not in the catalog).
func winner(sh *Sourced, c *Catalog) *Sourced {
	for _, s := range c.Skills {
		if s.AbsPath == sh.ShadowedBy {
			return s
		}
	}
	return nil
}

// shadowProblem is lint's warning of a skill another of its name shadows:
// whether the two differ, and how to resolve it (remove the copy, or
// rename one so both are routed).
func (w *Workspace) shadowProblem(sh *Sourced, c *Catalog) skillfile.Problem {
	win := winner(sh, c)
	what := w.ShadowSame(sh, c)
	same := what == identical
	fix := "rm -r " + describe(filepath.Dir(sh.AbsPath))
	if sh.Owner != nil && sh.NativeKey == "" && sh.Owner != w.Reg {
		fix = fmt.Sprintf("megagit -C %s skill rm %s", describe(sh.Owner.Root()), sh.Name)
	}
	if win != nil && win.Owner == w.Reg && win.NativeKey == "" && !same {
		fix += fmt.Sprintf(", or rename the project's to route both: megagit skill mv %s NEW-NAME", sh.Name)
	}
	return skillfile.Problem{File: describe(sh.AbsPath), Field: "name", Severity: skillfile.SeverityWarning,
		Message: fmt.Sprintf("%s skill %q is shadowed by %s (%s; not routed): %s", sh.Kind, sh.Name, describe(sh.ShadowedBy), what, fix)}
}
