package inject

import (
	"errors"
	"fmt"
	"time"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/route/serve"
)

// routePrompt routes a prompt for the hook: through a warm `megagit serve`
// when one answers within half the time left, else here. Here, an ONNX
// model is not used: loading ONNX Runtime and starting a model's session
// costs more than a prompt may wait, so only a server uses it, which
// the hook starts (ensureServer); until it answers, the prompt is routed
// here with the built-in model's vectors the compiled index keeps.
func routePrompt(opts Options, e *Env, st *state, prompt, project string, where *route.Where) ([]ranker.Doc, route.Result, error) {
	s := e.Settings
	s.Route.Where = where
	left := s.Deadline - time.Since(opts.Start)
	c := serve.Client{Version: opts.Version, Root: e.Root, LocalDir: e.Local.Path(), Config: s.ServeKey}
	docs, rr, err := c.Route(prompt, project, s.Route, left/2)
	if err == nil {
		return docs, rr, nil
	}
	serving := ""
	if s.Model == ModelONNX {
		serving = ensureServer(opts, e, err)
	} else if !errors.Is(err, serve.ErrNotServed) {
		note(opts, e, fmt.Errorf("%w; routed in-process", err))
	}
	var refresh func() bool
	exe, exeErr := megagit(opts)
	if exeErr == nil && s.Refresh != "off" {
		refresh = func() bool {
			left := s.Deadline - time.Since(opts.Start)
			fresh, err := refreshWithin(exe, e, left/2)
			if err != nil {
				note(opts, e, fmt.Errorf("refreshing the compiled index: %w", err))
			}
			return fresh
		}
	}
	rt, ix, err := e.router(st.guard, refresh)
	if err != nil {
		if serving != "" {
			note(opts, e, fmt.Errorf("megagit serve did not answer: %s", serving))
		}
		return nil, route.Result{}, err
	}
	if ix.stale != "" && refresh != nil && refresh() {
		// The skills changed (or the vectors are missing): the index
		// was refreshed within half the time left. (Else the hook
		// answers from the index as it is while the refresh goes on.)
		if rt, ix, err = e.router(st.guard, nil); err != nil {
			return nil, route.Result{}, err
		}
	}
	if ix.stale != "" {
		note(opts, e, errors.New(ix.stale))
		if exeErr != nil && s.Refresh != "off" {
			note(opts, e, fmt.Errorf("cannot refresh the compiled index: %w", exeErr))
		}
	}
	if ix.note != "" {
		note(opts, e, errors.New(ix.note))
	}
	if ix.unsaved != "" {
		note(opts, e, errors.New(ix.unsaved))
	}
	if ix.recheck {
		st.refresh.Store(true)
	}
	rr = rt.RouteWithProject(prompt, project, s.Route)
	if s.Model == ModelONNX {
		rr.Fallback = route.LexicalGate
		if sem, ok := rt.Sem.(*route.Semantic); ok && sem != nil {
			rr.Fallback = sem.Model
		}
		note(opts, e, fmt.Errorf("routed %s until megagit serve answers: %s", channelOf(rt), serving))
	}
	return rt.Docs, rr, nil
}

// channelOf says how a router ranks, for the hook log.
func channelOf(rt *route.Router) string {
	if sem, ok := rt.Sem.(*route.Semantic); ok && sem != nil {
		return "with the built-in model (" + sem.Model + ")"
	}
	return "lexically"
}

// Router builds the prompt hook's router from the compiled index (see
// router), for tests and the benchmark.
func (e *Env) Router() (*route.Router, error) {
	rt, _, err := e.router(nil, nil)
	return rt, err
}

// indexState is what the hook learned about the compiled index it
// answers from: stale says why a refresh should come before the answer
// ("": none needed), recheck that it is time for the full check after the
// answer (which sees a skill edited in place), note what to log besides.
type indexState struct {
	stale, note string
	recheck     bool
	unsaved     string // the index this process built could not be written
}

// router builds the router from the compiled index as it is: it costs no
// stat per skill, so the hook answers in the same time at any catalog
// size. When there is none to answer from, refresh (nil: none) builds it
// within the time the hook has, else this process does (megagit; guard is
// held meanwhile), else megagit-hook hands the prompt over (ErrStale).
func (e *Env) router(guard cacheGuard, refresh func() bool) (*route.Router, indexState, error) {
	s := e.Settings
	var ix indexState
	semantic := s.Model == ModelBuiltin || s.Model == ModelOther
	// Here, an ONNX model's prompt is routed with its fallback model (no
	// server answered: routePrompt).
	fallback := s.Model == ModelONNX && s.FallbackKey != ""
	if (semantic || fallback) && e.Prewarm != nil {
		e.Prewarm()
	}
	want := index.Want{Bodies: s.Route.Format == "compose", Vectors: semantic, Fallback: fallback}
	c, stale, ok := index.Open(e.Local, e.Root, s.Roots, s.Ranker, want)
	if !ok && refresh != nil {
		if !refresh() {
			return nil, ix, errNoIndex
		}
		// The refresh ended without an index it could write (a full
		// disk, say; its line in hook.log says why): megagit builds one in
		// memory, megagit-hook cannot.
		if c, stale, ok = index.Open(e.Local, e.Root, s.Roots, s.Ranker, want); !ok && e.Refresh == nil {
			return nil, ix, errNotWritten
		}
	}
	switch {
	case !ok && e.Refresh == nil:
		// This process cannot rebuild the index (megagit-hook): megagit can.
		return nil, ix, fmt.Errorf("%w: %v", ErrStale, index.ErrStale)
	case !ok:
		release := guard.hold()
		var err error
		c, err = e.Refresh()
		release()
		if errors.Is(err, index.ErrNotSaved) {
			ix.unsaved = fmt.Sprintf("%v: routed from the index built in memory", err)
		} else if err != nil {
			return nil, ix, err
		}
	case stale:
		ix.stale = "the skills changed since the compiled index was built, and refreshing it did not fit in the time: answered from it; the refresh goes on for the next prompt"
	default:
		ix.recheck = index.CheckedAgo(e.Local, time.Now()) > recheckAfter
	}
	var sem route.Dense
	dk := s.DynamicK
	switch {
	case semantic:
		sem, ix = e.semantic(c.Vectors, ix, s.ModelID, s.ModelKey, s.Dense, e.Query)
	case fallback:
		sem, ix = e.semantic(c.Fallback, ix, s.FallbackID, s.FallbackKey, s.FallbackDense, e.Fallback)
		dk.Gate = nil // a gate fitted by `megagit eval --fit` is the ONNX model's: the built-in model's own decides
	}
	rt, _ := route.New(c.Docs, s.Ranker, sem, dk, c.Index)
	return rt, ix, nil
}

// errNoIndex is logged when there is no compiled index to answer from and
// building one did not fit in the time.
var errNoIndex = errors.New("no compiled route index yet, and building it did not fit in the time: printed nothing; `megagit index` goes on building it for the next prompt")

// errNotWritten is logged when the refresh this process waited for ended
// without writing a compiled index, and this process cannot build one.
var errNotWritten = errors.New("the refresh of the compiled route index wrote none (its `megagit index` line in this log says why): printed nothing")

// recheckAfter is how long after the last full check of the compiled
// index the prompt hook starts another after answering, which sees edits
// in place: so the prompt after such an edit sees it.
const recheckAfter = time.Second

// megagit is the megagit binary that refreshes compiled indexes, or an
// error when there is none.
func megagit(opts Options) (string, error) {
	if opts.Megagit == nil {
		return "", errors.New("no megagit binary")
	}
	return opts.Megagit()
}

// semantic is the channel of the model id (keyed key, routing with prof,
// loaded by query) over the compiled index's vectors v, or nil (lexical
// routing) with why in ix: the vectors are missing or of another model (a
// refresh embeds them), or the model does not load.
func (e *Env) semantic(v *index.Vectors, ix indexState, id, key string, prof route.DenseProfile,
	query func() (func(string) ([]float32, error), string, error)) (route.Dense, indexState) {
	if v == nil || v.Key != key {
		if ix.stale == "" {
			ix.stale = fmt.Sprintf("the compiled index holds no vectors of %s, and embedding the skills did not fit in the time: routed lexically; the refresh goes on for the next prompt", id)
		}
		return nil, ix
	}
	if query == nil {
		ix.note = fmt.Sprintf("this binary cannot load %s: routed lexically", id)
		return nil, ix
	}
	embed, got, err := query()
	switch {
	case err != nil:
		ix.note = fmt.Sprintf("loading %s: %v: routed lexically", id, err)
		return nil, ix
	case got != v.Key:
		ix.note = fmt.Sprintf("the model %s is %s, but megagit saved the settings for %s: routed lexically", id, got, v.Key)
		return nil, ix
	}
	return &route.Semantic{Model: id, Vecs: v, Prof: prof, Embed: embed}, ix
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
