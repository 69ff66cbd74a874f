package regsync

import (
	"fmt"
	"sort"
	"strings"

	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/skillfile"
)

// Per-skill outcomes of a sync, from the local registry's point of view.
const (
	SyncNew       = "new"       // the skill arrived from the remote
	SyncUpdated   = "updated"   // its file or ledger changed locally
	SyncUnchanged = "unchanged" // nothing local changed
	SyncConflict  = "conflict"  // both sides changed it in a way megagit cannot merge
)

// SkillSync is what a sync did to one skill.
type SkillSync struct {
	Skill    string   `json:"skill"`
	Status   string   `json:"status"`
	Received int      `json:"received"` // verdicts that came from the remote
	Sent     int      `json:"sent"`     // local verdicts the remote did not have
	Paths    []string `json:"paths,omitempty"`
}

// report fills plan.skills: every skill on either side with its outcome
// and how many verdicts moved each way.
func (m *merger3) report(paths []string) error {
	get := func(name string) *SkillSync {
		s, ok := m.plan.skills[name]
		if !ok {
			s = &SkillSync{Skill: name, Status: SyncUnchanged}
			m.plan.skills[name] = s
		}
		return s
	}
	for _, p := range paths {
		rel := m.r.RelPath(p)
		name := m.r.skillOf(rel)
		if name == "" || skillfile.ValidateName(name) != nil {
			continue
		}
		s := get(name)
		if c, ok := m.out[p]; ok {
			if s.Status == SyncUnchanged {
				s.Status = SyncUpdated
			}
			s.Paths = append(s.Paths, rel)
			if m.r.isSkillFile(rel) && !m.o.has(p) && !c.Delete {
				s.Status = SyncNew
			}
		}
		if rel == ledger.Path(name) {
			if err := m.countVerdicts(s, p); err != nil {
				return err
			}
		}
	}
	// A symlink a teammate added is refused like a conflict: its skill is
	// one, so a report's counts agree with its action.
	for _, p := range append(append([]string(nil), m.plan.conflicts...), m.plan.links...) {
		if name := m.r.skillOf(m.r.RelPath(p)); name != "" && skillfile.ValidateName(name) == nil {
			s := get(name)
			s.Status = SyncConflict
			s.Paths = append(s.Paths, m.r.RelPath(p))
		}
	}
	for _, s := range m.plan.skills {
		sort.Strings(s.Paths)
	}
	return nil
}

// countVerdicts counts ledger ids received (in the merged ledger, not ours)
// and sent (ours, not theirs) for one ledger path.
func (m *merger3) countVerdicts(s *SkillSync, gitPath string) error {
	oe, te := m.o.files[gitPath], m.t.files[gitPath]
	if oe == te && m.o.has(gitPath) == m.t.has(gitPath) {
		return nil
	}
	ours, _, err := m.r.content(m.o, gitPath)
	if err != nil {
		return err
	}
	theirs, _, err := m.r.content(m.t, gitPath)
	if err != nil {
		return err
	}
	final, _, err := m.final(gitPath)
	if err != nil {
		return err
	}
	inO, inT := ledger.IDs(gitPath, ours), ledger.IDs(gitPath, theirs)
	for id := range ledger.IDs(gitPath, final) {
		if !inO[id] {
			s.Received++
		}
	}
	for id := range inO {
		if !inT[id] {
			s.Sent++
		}
	}
	return nil
}

// sortedSkills lists a plan's skills by name.
func (p *mergePlan) sortedSkills() []SkillSync {
	out := make([]SkillSync, 0, len(p.skills))
	for _, s := range p.skills {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	return out
}

// mergeMessage is the merge commit's message: what merged, and one
// Megagit-Action trailer block per updated skill for `megagit log`.
func mergeMessage(plan *mergePlan, remote string, branch gitstore.RefName) string {
	var b strings.Builder
	received, updated := 0, 0
	var names []string
	for _, s := range plan.skills {
		received += s.Received
		if s.Status != SyncUnchanged {
			updated++
			names = append(names, s.Skill)
		}
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "sync: merge %s/%s (%d verdict(s) received, %d skill(s) updated)\n\n", remote, branch.Short(), received, updated)
	b.WriteString("Ledgers merged by verdict id; evidence recomputed from the merged ledgers.\n\n")
	if len(names) == 0 {
		b.WriteString("Megagit-Action: sync\n")
	}
	for _, n := range names {
		fmt.Fprintf(&b, "Megagit-Action: sync\nMegagit-Skill: %s\n", n)
	}
	return b.String()
}
