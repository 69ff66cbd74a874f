package workspace

import (
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
)

// RankerConfig maps settings onto the ranker's knobs; a zero lexical setting
// keeps the ranker's measured default.
func RankerConfig(cfg *config.Config) ranker.Config {
	rc := ranker.DefaultConfig()
	set := func(dst *float64, v float64) {
		if v > 0 {
			*dst = v
		}
	}
	set(&rc.K1, cfg.Lexical.K1)
	for _, f := range []*ranker.Field{&rc.Fields.Name, &rc.Fields.Description, &rc.Fields.Headings, &rc.Fields.Triggers, &rc.Fields.Contexts, &rc.Fields.Body} {
		set(&f.B, cfg.Lexical.B)
	}
	set(&rc.Fields.Name.Weight, cfg.Lexical.WName)
	set(&rc.Fields.Description.Weight, cfg.Lexical.WDescription)
	set(&rc.Fields.Headings.Weight, cfg.Lexical.WHeadings)
	set(&rc.Fields.Triggers.Weight, cfg.Lexical.WTriggers)
	set(&rc.Fields.Contexts.Weight, cfg.Lexical.WCtx)
	set(&rc.Fields.Body.Weight, cfg.Lexical.WBody)
	if cfg.Lexical.WBody < 0 {
		rc.Fields.Body.Weight = 0
	}
	rc.FastPath = ranker.LexicalFastPath{Min: cfg.Lexical.FastMin, Margin: cfg.Lexical.FastMargin}
	rc.Blend.Enabled = cfg.Blend.Enabled
	rc.Blend.Count, rc.Blend.Context = cfg.Blend.CountW, cfg.Blend.ContextW
	rc.Blend.Harm, rc.Blend.Related = cfg.Blend.HarmW, cfg.Blend.RelatedW
	rc.Blend.HalfLifeDays = cfg.Blend.HalfLife
	rc.Blend.Learnt = cfg.Blend.LearntW
	rc.MMR.Lambda = cfg.Route.MMR
	if cfg.DynamicK.Tier != "" {
		floor := rc.DynamicK.AbsFloor
		rc.DynamicK = ranker.ProfileFor(cfg.DynamicK.Tier)
		rc.DynamicK.AbsFloor = floor
	}
	if cfg.DynamicK.AbsFloor > 0 {
		rc.DynamicK.AbsFloor = cfg.DynamicK.AbsFloor
	}
	set(&rc.DynamicK.AbstainZTop1, cfg.DynamicK.AbstainZTop1)
	set(&rc.DynamicK.AbstainZEnt, cfg.DynamicK.AbstainZEnt)
	set(&rc.DynamicK.AmbigZEnt, cfg.DynamicK.AmbigZEnt)
	set(&rc.DynamicK.VeryAmbigZEnt, cfg.DynamicK.VeryAmbigZEnt)
	return rc
}

// Docs reads every source's skills (Catalog) into ranker documents. The
// skills that do not parse and the sources that cannot be read come back
// as problems, so a caller warns about them; the shadowed skills are
// left to skill list, lint and doctor (a project skill overriding a team
// one of the same name is no mistake).
func (w *Workspace) Docs() (docs []ranker.Doc, problems []error, err error) {
	docs, problems, _, err = w.catalogDocs()
	return docs, problems, err
}

// catalogDocs is Docs with the catalog it read.
func (w *Workspace) catalogDocs() (docs []ranker.Doc, problems []error, c *Catalog, err error) {
	c, err = w.Catalog()
	if err != nil {
		return nil, nil, nil, err
	}
	problems = c.Problems
	for _, s := range c.Skills {
		if s.Held != "" && s.PolicyErr == nil { // the registry reports an unreadable policy itself
			problems = append(problems, fmt.Errorf("%s (the skill is not routed)", s.Held))
		}
	}
	return CatalogDocs(c.Skills), problems, c, nil
}

// CatalogDocs turns the routable skills (Sourced.Routable) into ranker
// documents, in the same order, with their paths: a skill of the registry
// keeps its registry-relative path, any other its absolute one. A skill
// the agent keeps from the model is no document, so nothing routes to it.
func CatalogDocs(skills []*Sourced) []ranker.Doc {
	regSkills := make([]*registry.Skill, 0, len(skills))
	paths := make([][]string, 0, len(skills))
	ledgers := make(map[string][]ledger.Entry, len(skills))
	for _, s := range skills {
		if !s.Routable() {
			continue
		}
		regSkills = append(regSkills, s.Skill)
		paths = append(paths, s.Paths)
		ledgers[s.Name] = s.Ledger
	}
	docs := SkillDocs(regSkills, ledgers)
	for i := range docs {
		docs[i].Paths = paths[i]
	}
	i := 0
	for _, s := range skills {
		if s.Routable() {
			docs[i].Held = s.HeldRules
			i++
		}
	}
	return docs
}

// SkillDocs turns registry skills (and their ledgers, for the related-verdict
// term) into ranker documents, in the same order.
func SkillDocs(skills []*registry.Skill, ledgers map[string][]ledger.Entry) []ranker.Doc {
	docs := make([]ranker.Doc, len(skills))
	for i, s := range skills {
		ev := s.Evidence
		d := ranker.Doc{
			// What a skill says is injected and printed: cleaned here, once,
			// for every reader of the documents (safetext.Injected).
			ID: s.Name, Path: s.Path, Description: safetext.Line(safetext.Injected(s.File.Listing())),
			Headings: injectedLines(s.File.Headings()), Triggers: injectedLines(s.File.Triggers()), Body: safetext.Injected(s.File.Body()),
			HelpfulContexts: ev.HelpfulContexts, HarmfulContexts: ev.HarmfulContexts,
			HelpfulCount: ev.HelpfulCount, HarmfulCount: ev.HarmfulCount,
			Status: string(routedStatus(ev, ledgers[s.Name])), Weight: ev.WeightMultiplier(),
			Silence: lifecycle.SilenceMultiplier(ev.SilentStreak),
		}
		if !ev.LastUpdated.IsZero() {
			d.Updated = ev.LastUpdated.Unix()
		}
		for _, en := range ledgers[s.Name] {
			if en.Reason == "" || en.Source != ledger.SourceExplicit || en.Action != "" {
				continue
			}
			switch en.Verdict {
			case "HELPFUL":
				d.Related = append(d.Related, ranker.Reason{Text: en.Reason, Helpful: true})
			case "HARMFUL":
				d.Related = append(d.Related, ranker.Reason{Text: en.Reason})
			}
		}
		docs[i] = d
	}
	return docs
}

// injectedLines is lines each cleaned as safetext.Injected, on one line.
func injectedLines(lines []string) []string {
	for i, l := range lines {
		lines[i] = safetext.Line(safetext.Injected(l))
	}
	return lines
}

// routedStatus is the status a skill routes with: its mega_meta's, unless
// its ledger archived it and mega_meta says otherwise (edited by hand):
// only an unarchive in the ledger lifts an archive.
func routedStatus(ev lifecycle.Evidence, entries []ledger.Entry) lifecycle.Status {
	if ArchivedByLedger(ev, entries) {
		return lifecycle.Archived
	}
	return ev.Status
}

// ArchivedByLedger says a skill's ledger archived it while its mega_meta
// says another status: a hand edit, which megagit does not honour
// (`megagit unarchive` is the way back).
func ArchivedByLedger(ev lifecycle.Evidence, entries []ledger.Entry) bool {
	return ev.Status != lifecycle.Archived && len(entries) > 0 &&
		ledger.Replay(ev, entries).Status == lifecycle.Archived
}
