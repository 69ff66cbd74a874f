package cli

import (
	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
)

// The router, its settings and results live in route, shared with
// the megagit-hook binary.
type (
	router        = route.Router
	routeSettings = route.Settings
	routeResult   = route.Result
	semantic      = dense.Channel
)

// newRouter indexes docs with the config's dynamic_k section (dk) as the
// overrides of a semantic model's profile.
func newRouter(docs []ranker.Doc, cfg ranker.Config, sem *semantic, dk config.DynamicK) *router {
	r, _ := route.New(docs, cfg, denseOf(sem), dkOverride(dk), nil)
	return r
}

// denseOf is sem as a router's dense channel: a nil *semantic must be a
// nil route.Dense (lexical routing), not an interface holding nil.
func denseOf(sem *semantic) route.Dense {
	if sem == nil {
		return nil
	}
	return sem
}

// semanticOf is a router's dense channel as a *semantic (nil when lexical).
func semanticOf(rt *router) *semantic {
	s, _ := rt.Sem.(*semantic)
	return s
}

// dkOverride is what the config's dynamic_k section overrides of a model's profile.
func dkOverride(dk config.DynamicK) route.DynamicKOverride {
	return route.DynamicKOverride{Tier: dk.Tier, AbsFloor: dk.AbsFloor}
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
