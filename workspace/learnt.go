package workspace

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/learn/learnt"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
)

// learntStores are the stores routing reads here: this registry's, the
// user registry's and the team registry's, each once.
func (w *Workspace) learntStores() []local.Dir {
	var out []local.Dir
	seen := map[string]bool{}
	add := func(ld local.Dir) {
		if !seen[ld.Path()] {
			seen[ld.Path()] = true
			out = append(out, ld)
		}
	}
	add(w.Reg.Local())
	if u, err := w.Personal(); err == nil && u != nil {
		add(u.Reg.Local())
	}
	if t, err := w.Team(); err == nil && t != nil {
		add(t.Reg.Local())
	}
	return out
}

// LearntPrompts are the learnt prompts of every store routing reads, by
// lower-case skill name, oldest first.
func (w *Workspace) LearntPrompts() (map[string][]learnt.Learnt, error) {
	out := map[string][]learnt.Learnt{}
	var errs []error
	for _, ld := range w.learntStores() {
		recs, bad, err := learnt.ReadLearnt(learnt.LearntPath(ld))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if bad > 0 {
			errs = append(errs, fmt.Errorf("%s: %d line(s) that are not a learnt prompt (fields skill, prompt and key), skipped; `megagit learn forget --all` clears the file", learnt.LearntPath(ld), bad))
		}
		for _, r := range recs {
			k := strings.ToLower(r.Skill)
			out[k] = append(out[k], r)
		}
	}
	for k := range out {
		sort.SliceStable(out[k], func(i, j int) bool { return out[k][i].Time.Before(out[k][j].Time) })
	}
	return out, errors.Join(errs...)
}

// withLearnt gives each document its newest learnt.LearntRouted learnt
// prompts (not already one of its helpful contexts) and when the newest
// was used: those of the stores routing reads, and those shared in its
// ledger (SharedUses). skills are the catalog's, by lower-case name.
func (w *Workspace) withLearnt(docs []ranker.Doc, skills map[string]*Sourced) ([]ranker.Doc, error) {
	byName, err := w.LearntPrompts()
	for i := range docs {
		k := strings.ToLower(docs[i].ID)
		recs := withShared(byName[k], skills[k])
		if len(recs) == 0 {
			continue
		}
		have := map[string]bool{}
		for _, c := range docs[i].HelpfulContexts {
			have[c] = true
		}
		var prompts []string
		var newest time.Time
		for j := len(recs) - 1; j >= 0 && len(prompts) < learnt.LearntRouted; j-- {
			if p := recs[j].Prompt; !have[p] {
				have[p] = true
				prompts = append(prompts, p)
				if recs[j].Time.After(newest) {
					newest = recs[j].Time
				}
			}
		}
		docs[i].Learnt = prompts
		if !newest.IsZero() {
			docs[i].LearntUpdated = newest.Unix()
		}
	}
	return docs, err
}

// SharedHow is the How of a learnt prompt that is a shared use in a
// skill's ledger (`megagit learn share`), not one of this machine's store.
const SharedHow = "shared"

// SharedUses are the uses shared in s's ledger (ledger.ActionUse), as
// learnt prompts, oldest first.
func SharedUses(s *Sourced) []learnt.Learnt {
	var out []learnt.Learnt
	for _, en := range s.Ledger {
		if en.Action != ledger.ActionUse {
			continue
		}
		p := learnt.CleanLearnt(en.Context)
		if p == "" {
			continue
		}
		agent, _ := safetext.Session.Clean(en.Agent)
		session, _ := safetext.Session.Clean(en.Session)
		out = append(out, learnt.Learnt{Skill: s.Name, Prompt: p, Agent: agent, Session: session, How: SharedHow, Time: en.Time(), Key: en.ID})
	}
	return out
}

// LearntOf is every learnt prompt routing reads for one skill: this
// machine's stores' and those its ledger shares, oldest first.
func (w *Workspace) LearntOf(skill string) ([]learnt.Learnt, error) {
	k := strings.ToLower(skill)
	byName, err := w.LearntPrompts()
	c, cerr := w.Catalog()
	if cerr != nil {
		return byName[k], errors.Join(err, cerr)
	}
	return withShared(byName[k], routableByName(c.Skills)[k]), err
}

// withShared is a skill's learnt prompts of this machine (recs, oldest
// first) and those its ledger shares (s nil: none), oldest first.
func withShared(recs []learnt.Learnt, s *Sourced) []learnt.Learnt {
	if s == nil {
		return recs
	}
	shared := SharedUses(s)
	if len(shared) == 0 {
		return recs
	}
	all := append(slices.Clone(recs), shared...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	return all
}

// routableByName is the catalog's routable skills by lower-case name.
func routableByName(skills []*Sourced) map[string]*Sourced {
	out := make(map[string]*Sourced, len(skills))
	for _, s := range skills {
		if s.Routable() {
			out[strings.ToLower(s.Name)] = s
		}
	}
	return out
}

// ForgetLearnt removes, from every store routing reads here, the learnt
// prompts of the skills named (none: all of them); how many went.
func (w *Workspace) ForgetLearnt(skills []string) (int, error) {
	names := map[string]bool{}
	for _, s := range skills {
		names[strings.ToLower(s)] = true
	}
	gone := 0
	for _, ld := range w.learntStores() {
		n, err := learnt.Forget(ld, names)
		gone += n
		if err != nil {
			return gone, fmt.Errorf("%s: %w", learnt.LearntPath(ld), err)
		}
	}
	return gone, nil
}
