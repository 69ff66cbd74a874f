package cli

import (
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
)

// newRouter indexes docs with the config's dynamic_k section (dk) as the
// overrides of a semantic model's profile.
func newRouter(docs []ranker.Doc, cfg ranker.Config, sem *dense.Channel, dk config.DynamicK) *route.Router {
	r, _ := route.New(docs, cfg, denseOf(sem), dkOverride(dk), nil)
	return r
}

// denseOf is sem as a router's dense channel: a nil *dense.Channel must be
// a nil route.Dense (lexical routing), not an interface holding nil.
func denseOf(sem *dense.Channel) route.Dense {
	if sem == nil {
		return nil
	}
	return sem
}

// semanticOf is a router's dense channel as a *dense.Channel (nil when lexical).
func semanticOf(rt *route.Router) *dense.Channel {
	s, _ := rt.Sem.(*dense.Channel)
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

// semanticFor wires the configured model into routing for a registry; any
// failure falls back to lexical routing with one warning on a's stderr.
func (e *env) semanticFor(a *app, docs []ranker.Doc) *dense.Channel {
	return dense.ForRegistry(e.cfg, e.reg.Root(), e.reg.LocalDir(), docs, a.say)
}

// say prints one line on stderr: the rooms below cli pass their warnings
// and notes here, since they print nothing themselves.
func (a *app) say(line string) { fmt.Fprintln(a.errOut, line) }

// router reads the registry's skills and ledgers into a router.
func (e *env) router(a *app) (*route.Router, error) {
	docs, err := e.docs(a)
	if err != nil {
		return nil, err
	}
	return newRouter(docs, rankerConfig(e.cfg), e.semanticFor(a, docs), e.cfg.DynamicK), nil
}
