package main

import "github.com/megagit/megagit/ranker"

// router routes prompts against one loaded set of skills; route, why, eval
// and the prompt hook all go through it so they decide identically.
type router struct {
	ix   *ranker.Index
	docs []ranker.Doc
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
}

func newRouter(docs []ranker.Doc, cfg ranker.Config) *router {
	return &router{ix: ranker.NewIndex(docs, cfg), docs: docs}
}

// router reads the registry's skills and ledgers into a router.
func (e *env) router(a *app) (*router, error) {
	skills, problems, err := e.reg.Skills()
	if err != nil {
		return nil, err
	}
	warnProblems(a, problems)
	ledgers, err := e.reg.Ledgers()
	if err != nil {
		return nil, err
	}
	return newRouter(skillDocs(skills, ledgers), rankerConfig(e.cfg)), nil
}

// rank scores every skill and decides K.
func (r *router) rank(prompt string, s routeSettings) ranker.Result {
	return r.ix.Rank(prompt, ranker.Options{TopK: s.TopK, NoDynamicK: s.NoDynamic})
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
	return routeResult{res: res, rendered: out}
}
