package inject

import (
	"errors"
	"fmt"
	"time"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
)

// routePrompt routes a prompt for the hook: through a warm `megagit serve`
// when one answers within half the time left, else here. Here, an ONNX
// model routes lexically: starting its session costs more than a prompt
// may wait (BENCHMARKS.md, "ONNX models"), so only a server uses it.
func routePrompt(opts Options, e *Env, st *state, prompt, project string) ([]ranker.Doc, route.Result, error) {
	s := e.Settings
	left := s.Deadline - time.Since(opts.Start)
	c := route.Client{Version: opts.Version, Root: e.Root, LocalDir: e.Local.Path(), Config: s.ServeKey}
	docs, rr, err := c.Route(prompt, project, s.Route, left/2)
	if err == nil {
		return docs, rr, nil
	}
	model := s.Model
	if stale := e.canLoad(model); stale != nil {
		return nil, route.Result{}, stale // before any note: megagit asks the server again
	}
	if !errors.Is(err, route.ErrNotServed) {
		note(opts, e, fmt.Errorf("%w; routed in-process", err))
	}
	if model == ModelONNX {
		note(opts, e, errors.New("the ONNX model is used only through `megagit serve`, and none answered: routed lexically"))
		model = ModelNone
	}
	rt, err := e.router(model, st.guard)
	if err != nil {
		return nil, route.Result{}, err
	}
	return rt.Docs, rt.RouteWithProject(prompt, project, s.Route), nil
}

// Router builds the prompt hook's router from the compiled index,
// rebuilding that when it is out of date (ErrStale when e.Docs is nil).
func (e *Env) Router() (*route.Router, error) { return e.router(e.Settings.Model, nil) }

// router is Router with model as the model kind, holding guard until the
// compiled index is read, or rebuilt and saved.
func (e *Env) router(model string, guard cacheGuard) (*route.Router, error) {
	s := e.Settings
	if err := e.canLoad(model); err != nil {
		return nil, err
	}
	if e.Prewarm != nil {
		e.Prewarm(model)
	}
	release := guard.hold()
	c, err := route.Load(e.Local, e.Root, s.Roots, s.Ranker, s.Route.Format == "compose", e.Docs)
	release()
	if errors.Is(err, route.ErrStale) {
		// This process cannot rebuild the index (megagit-hook): megagit can.
		return nil, fmt.Errorf("%w: %v", ErrStale, err)
	}
	if err != nil {
		return nil, err
	}
	var sem route.Dense
	if model == ModelBuiltin || model == ModelOther {
		sem = e.Semantic(model, c.Docs)
	}
	rt, _ := route.New(c.Docs, s.Ranker, sem, s.DynamicK, c.Index)
	return rt, nil
}

// canLoad is ErrStale when routing with model needs a semantic channel
// this process cannot load (megagit-hook links no model code).
func (e *Env) canLoad(model string) error {
	if (model == ModelBuiltin || model == ModelOther) && e.Semantic == nil {
		return fmt.Errorf("%w: the %s model is loaded by megagit", ErrStale, model)
	}
	return nil
}

// cacheGuard lets the deadline watcher wait for a cache write in progress.
// The worker holds it while it reads or rebuilds and saves the compiled
// index, so a first call that runs out of time (thousands of skills to
// parse) still leaves the index behind: otherwise every later call would
// redo the same work and time out too. A nil guard does nothing.
type cacheGuard chan struct{}

func newCacheGuard() cacheGuard { return make(cacheGuard, 1) }

// hold takes the guard and returns its release.
func (g cacheGuard) hold() func() {
	if g == nil {
		return func() {}
	}
	g <- struct{}{}
	return func() { <-g }
}

// wait takes the guard for good, once no cache is being written, or gives
// up after d; it reports whether it got the guard.
func (g cacheGuard) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case g <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}
