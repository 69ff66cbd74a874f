package workspace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/learn/learnt"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
)

// Sharing the prompts learnt from history (`megagit learn share`): the
// prompts in this registry's store of its own skills become ledger lines
// (ledger.ActionUse), committed, so sync pushes them and a teammate's
// megagit routes them like their own learnt prompts. Nothing is shared
// unless asked: PlanShare says what would be, Share commits it.

// SharePlan is what sharing would commit.
type SharePlan struct {
	// Uses are the prompts to share, by skill then time.
	Uses []registry.Use
	// Already counts the prompts the ledgers hold already.
	Already int
	// Kept are the skills whose learnt prompts stay on this machine, with
	// why (a skill of an agent's own folder, or of another registry).
	Kept map[string]string
}

// PlanShare is what `megagit learn share` would commit for the skills
// named (none: every skill with learnt prompts).
func (w *Workspace) PlanShare(skills []string) (SharePlan, error) {
	plan := SharePlan{Kept: map[string]string{}}
	recs, bad, err := learnt.ReadLearnt(learnt.LearntPath(w.Reg.Local()))
	if err != nil {
		return plan, err
	}
	if bad > 0 {
		return plan, fmt.Errorf("%w: %s: %d line(s) that are not a learnt prompt; `megagit learn forget --all` clears the file", errkind.ErrInvalid, learnt.LearntPath(w.Reg.Local()), bad)
	}
	c, err := w.Catalog()
	if err != nil {
		return plan, err
	}
	byName := map[string]*Sourced{}
	for _, s := range c.Skills {
		byName[strings.ToLower(s.Name)] = s
	}
	want := map[string]bool{}
	for _, n := range skills {
		want[strings.ToLower(n)] = true
	}
	found := map[string]bool{}
	for _, r := range recs {
		k := strings.ToLower(r.Skill)
		if len(want) > 0 && !want[k] {
			continue
		}
		found[k] = true
		s := byName[k]
		switch {
		case s == nil:
			plan.Kept[r.Skill] = "no skill of that name is read here now"
			continue
		case s.NativeKey != "" || s.Kind != KindProject || s.Owner != w.Reg:
			plan.Kept[s.Name] = "not a skill of this registry (" + describeSource(s) + "): its prompts stay on this machine"
			continue
		}
		u := registry.Use{Skill: s.Name, Prompt: r.Prompt, Agent: r.Agent, Session: r.Session, At: r.Time, Key: r.Key}
		if registry.HoldsEntry(s.Ledger, registry.UseEntry(u)) {
			plan.Already++
			continue
		}
		plan.Uses = append(plan.Uses, u)
	}
	var missing []string
	for _, n := range skills {
		if !found[strings.ToLower(n)] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return plan, fmt.Errorf("%w: no prompt learnt from history for %s (`megagit learn history` learns them)", registry.ErrNotFound, strings.Join(missing, ", "))
	}
	sort.SliceStable(plan.Uses, func(i, j int) bool {
		a, b := plan.Uses[i], plan.Uses[j]
		if a.Skill != b.Skill {
			return a.Skill < b.Skill
		}
		return a.At.Before(b.At)
	})
	return plan, nil
}

// Share commits plan's uses to their skills' ledgers in one commit; the
// lines added (none: nothing new, no commit).
func (w *Workspace) Share(plan SharePlan) ([]ledger.Entry, gitstore.Hash, error) {
	if len(plan.Uses) == 0 {
		return nil, gitstore.ZeroHash, nil
	}
	return w.Reg.ShareUses(plan.Uses)
}

// describeSource names where a skill comes from, for a user.
func describeSource(s *Sourced) string {
	switch {
	case s.Plugin != "":
		return "of the Claude Code plugin " + s.Plugin
	case s.Agent != "":
		return "in " + s.Agent + "'s own folder " + Describe(s.Folder)
	case s.Kind == KindTeam:
		return "of the team registry"
	case s.Kind == KindUser:
		return "of the user registry"
	}
	return s.Kind
}
