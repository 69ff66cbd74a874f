package main

import (
	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
)

// router routes prompts against one loaded set of skills; route, why, eval
// and the prompt hook all go through it so they decide identically.
type router struct {
	ix   *ranker.Index
	docs []ranker.Doc
	sem  *semantic // nil: lexical only
	prof *ranker.DynamicK
}

// routeSettings are the per-call output choices.
type routeSettings struct {
	TopK      int
	NoDynamic bool
	Format    string
	Budget    int
}

// routeResult is one routed prompt, rendered.
type routeResult struct {
	res      ranker.Result
	rendered ranker.Rendered
	// candidates counts the skills ranked and not archived (res.Ranked of
	// an answer from `megagit serve` holds only the head of the ranking).
	candidates int
	served     bool // answered by `megagit serve`
}

// newRouter indexes docs; with a semantic channel the model's profile sets
// the fusion weight and the dynamic-K floor and tier, unless the config
// overrode them (dk is the config's dynamic_k section).
func newRouter(docs []ranker.Doc, cfg ranker.Config, sem *semantic, dk config.DynamicK) *router {
	r, _ := newRouterFrom(docs, cfg, sem, dk, nil)
	return r
}

// newRouterFrom is newRouter restoring the index from snap (a snapshot of
// an index of the same docs) instead of analysing every doc again;
// restored is false when snap is nil or does not fit and the index was built.
func newRouterFrom(docs []ranker.Doc, cfg ranker.Config, sem *semantic, dk config.DynamicK, snap *ranker.Snapshot) (r *router, restored bool) {
	r = &router{docs: docs, sem: sem}
	if sem != nil {
		w := sem.prof.FusionW
		cfg.Fusion = ranker.Fusion{Mode: ranker.FusionLinear, DenseWeight: w}
		p := cfg.DynamicK // the lexical profile with the config's overrides
		if dk.Tier == "" && sem.prof.Tier != "" {
			t := ranker.ProfileFor(sem.prof.Tier)
			p.KMin, p.KMax, p.KAmbig, p.KVeryAmbig = t.KMin, t.KMax, t.KAmbig, t.KVeryAmbig
		}
		// Abstention uses both channels: each has a floor on its own scale
		// (share of the attainable BM25F score, cosine), and the fused
		// score's floor is their mix with the fusion weights.
		p.AbsFloor = (1-w)*cfg.DynamicK.AbsFloor + w*sem.prof.AbsFloor
		if dk.AbsFloor > 0 {
			p.AbsFloor = dk.AbsFloor
		}
		r.prof = &p
	}
	if snap != nil {
		if ix, err := ranker.NewIndexFromSnapshot(docs, cfg, snap); err == nil {
			r.ix = ix
			return r, true
		}
	}
	r.ix = ranker.NewIndex(docs, cfg)
	return r, false
}

// docs reads the registry's skills and ledgers into ranker documents,
// warning about skills that do not parse.
func (e *env) docs(a *app) ([]ranker.Doc, error) {
	skills, problems, err := e.reg.Skills()
	if err != nil {
		return nil, err
	}
	warnProblems(a, problems)
	ledgers, err := e.reg.Ledgers()
	if err != nil {
		return nil, err
	}
	return skillDocs(skills, ledgers), nil
}

// router reads the registry's skills and ledgers into a router.
func (e *env) router(a *app) (*router, error) {
	docs, err := e.docs(a)
	if err != nil {
		return nil, err
	}
	return newRouter(docs, rankerConfig(e.cfg), e.semanticFor(a, docs), e.cfg.DynamicK), nil
}

// rank scores every skill and decides K.
func (r *router) rank(prompt string, s routeSettings) ranker.Result {
	opt := ranker.Options{TopK: s.TopK, NoDynamicK: s.NoDynamic, Profile: r.prof}
	if r.sem != nil {
		dense, err := r.sem.scores(prompt)
		if err == nil {
			opt.Dense, opt.DenseFloor = dense, r.sem.prof.AbsFloor
		} else {
			opt.Profile = nil // lexical fallback for this prompt
		}
	}
	return r.ix.Rank(prompt, opt)
}

// route ranks and renders what would be injected, within the budget.
func (r *router) route(prompt string, s routeSettings) routeResult {
	res := r.rank(prompt, s)
	var out ranker.Rendered
	if s.Format == "compose" {
		out = ranker.RenderCompose(r.docs, res.Emitted, s.Budget)
	} else {
		out = ranker.RenderCatalog(r.docs, res.Emitted, s.Budget)
	}
	n := 0
	for _, b := range res.Ranked {
		if !b.Archived() {
			n++
		}
	}
	return routeResult{res: res, rendered: out, candidates: n}
}

// routeWithProject routes a prompt the way the prompt hook does. Seed 001
// §1: the project name joins the query, as plain words. It may reorder and
// pick among the skills the prompt itself matches, never add one the prompt
// does not match, nor turn "nothing" into something: measured on
// examples/demo, a project called "release-notes-bot" made a pytest prompt
// pull release-notes and python-packaging otherwise.
func (r *router) routeWithProject(prompt, project string, s routeSettings) routeResult {
	rr := r.route(prompt, s)
	if project != "" && rr.res.K > 0 {
		if with := r.route(prompt+"\n"+project, s); with.res.K > 0 {
			rr = projectFiltered(rr, with)
		}
	}
	return rr
}
