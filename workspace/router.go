package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/route/index"
)

// NewRouter indexes docs as `megagit route` would under cfg: its ranker
// settings, and its dynamic_k section as the overrides of a semantic
// model's profile. A nil sem routes lexically.
func NewRouter(docs []ranker.Doc, cfg *config.Config, sem *dense.Channel) *route.Router {
	r, _ := route.New(docs, RankerConfig(cfg), denseOf(sem), dkOverride(cfg.DynamicK), nil)
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

// SemanticOf is a router's dense channel as a *route.Semantic (nil when
// lexical), for callers that report on the model.
func SemanticOf(rt *route.Router) *route.Semantic {
	s, _ := rt.Sem.(*route.Semantic)
	return s
}

// dkOverride is what the config's dynamic_k section overrides of a model's profile.
func dkOverride(dk config.DynamicK) route.DynamicKOverride {
	return route.DynamicKOverride{Tier: dk.Tier, AbsFloor: dk.AbsFloor, Gate: dk.Fitted, NoGate: dk.Gate == "off"}
}

// Router reads the registry's skills into a router through the compiled
// index in .megagit/local/ (index.Refresh): when no skill, ledger, ranker
// setting or model changed since it was written, no SKILL.md is parsed
// and no skill embedded. The skills that do not parse go to problems on
// every call (they are remembered with the index), the model's warnings
// to say. bodies says whether the router renders skills' bodies (the
// compose format), as Compiled.
func (w *Workspace) Router(problems func([]error), say func(line string), bodies bool) (*route.Router, error) {
	c, sem, bad, err := w.Compiled(say, bodies)
	problems(bad)
	if errors.Is(err, index.ErrNotSaved) {
		say("megagit: warning: " + err.Error() + "; routing from the index built in memory")
	} else if err != nil {
		return nil, err
	}
	var d route.Dense
	if sem != nil {
		d = sem
	}
	rt, _ := route.New(c.Docs, RankerConfig(w.Cfg), d, dkOverride(w.Cfg.DynamicK), c.Index)
	return rt, nil
}

// Compiled brings the compiled index up to date (index.Refresh) and
// returns it with the configured model's channel over its vectors (nil:
// lexical) and the skills that did not parse. Without bodies (for a
// caller that renders none), the documents of an index that was up to
// date have no Body: their bodies are most of a large index's bytes. An
// index that could not be written (index.ErrNotSaved) is returned whole,
// with its channel, and that error.
func (w *Workspace) Compiled(say func(line string), bodies bool) (c index.Compiled, sem *route.Semantic, bad []error, err error) {
	emb, prof := dense.Model(w.Cfg, w.Reg.Root(), say)
	rebuilt := false
	indexDocs := w.indexDocs()
	src := index.Source{
		Docs: func() ([]ranker.Doc, error) {
			rebuilt = true
			docs, b, err := indexDocs()
			bad = b
			return docs, err
		},
		Update:   w.updateDocs,
		NoBodies: !bodies,
	}
	if emb != nil {
		src.VecKey = embedcache.CacheKey(emb)
		src.Vectors = func(docs []ranker.Doc) (*index.Vectors, error) {
			return dense.RegistryVectors(emb, prof, w.Reg.Root(), w.Reg.LocalDir(), docs, say)
		}
	}
	if fb, fbProf := dense.Fallback(w.Cfg, w.Reg.Root()); fb != nil {
		// The prompt hook routes with these until the ONNX model's server
		// answers; the built-in model embeds a registry in milliseconds.
		src.FallbackKey = embedcache.CacheKey(fb)
		src.Fallback = func(docs []ranker.Doc) (*index.Vectors, error) {
			return dense.RegistryVectors(fb, fbProf, w.Reg.Root(), w.Reg.LocalDir(), docs, func(string) {})
		}
	}
	c, _, err = index.Refresh(w.Reg.Local(), w.Reg.Root(), w.StampRoots(), RankerConfig(w.Cfg), src)
	if !rebuilt && err == nil {
		bad = loadProblems(w.Reg.Local(), c.Key)
	}
	if err != nil && !errors.Is(err, index.ErrNotSaved) {
		return index.Compiled{}, nil, bad, err
	}
	sem = dense.Semantic(emb, prof, c.Vectors)
	if sem != nil {
		dense.NoteProfile(emb, prof, say)
	}
	return c, sem, bad, err
}

// updateDocs re-reads the skills whose SKILL.md or ledger changed since
// the compiled index old was built (changed: registry-relative paths),
// for a refresh that would otherwise parse every skill. It declines (ok
// false: read them all) unless every change is an edit of a skill the
// index holds that still parses from the same file, so which skills there
// are, and which do not parse, is as the last full read found.
func (w *Workspace) updateDocs(old index.Compiled, key string, changed []string) ([]ranker.Doc, bool) {
	at := make(map[string]int, len(old.Docs))
	for i, d := range old.Docs {
		at[d.ID] = i
	}
	problems, ok := loadProblemsFor(w.Reg.Local(), old.Key)
	if !ok {
		return nil, false
	}
	names := map[string]bool{}
	for _, p := range changed {
		if name, ok := strings.CutSuffix(strings.TrimPrefix(p, local.LedgerDir+"/"), ".jsonl"); ok && strings.HasPrefix(p, local.LedgerDir+"/") {
			if _, held := at[name]; held {
				names[name] = true
			}
			continue // a ledger of no loaded skill ranks nothing
		}
		name := path.Base(path.Dir(p))
		i, held := at[name]
		if !held || old.Docs[i].Path != p {
			return nil, false // a skill added, removed, moved or broken
		}
		names[name] = true
	}
	docs := slices.Clone(old.Docs)
	sources := map[string]*Sourced{}
	for name := range names {
		s, err := w.Reg.Skill(name)
		if err != nil || s.Path != old.Docs[at[name]].Path {
			return nil, false
		}
		entries, err := w.Reg.Ledger(name)
		if err != nil {
			return nil, false
		}
		src := &Sourced{Skill: s, Kind: KindProject, AbsPath: w.abs(s.Path), Owner: w.Reg, Ledger: entries}
		applyRules(src, AgentRules{})
		w.hold([]*Sourced{src}, false)
		if !src.Routable() {
			return nil, false // now user-only, or its rules unreadable
		}
		docs[at[name]] = CatalogDocs([]*Sourced{src})[0]
		sources[strings.ToLower(name)] = src
	}
	// The learnt prompts of the skills read again: this machine's (the
	// store is unchanged, else nothing is updated in place) and the ones
	// their ledgers share.
	changedDocs := make([]ranker.Doc, 0, len(names))
	for name := range names {
		changedDocs = append(changedDocs, docs[at[name]])
	}
	if _, err := w.withLearnt(changedDocs, sources); err != nil {
		return nil, false
	}
	for _, d := range changedDocs {
		docs[at[d.ID]] = d
	}
	saveProblems(w.Reg.Local(), key, problems)
	return docs, true
}

// indexDocs reads the skills for a rebuild of the compiled index, by
// `megagit route` or by the prompt hook alike, and remembers the skills
// that did not parse under the skills' key, for the calls that then read
// the index instead of the skills.
func (w *Workspace) indexDocs() func() ([]ranker.Doc, []error, error) {
	return func() ([]ranker.Doc, []error, error) {
		// The key first, as route.Load takes it: an edit meanwhile makes
		// both stale together.
		key, kerr := index.SkillsKey(w.Reg.Root(), w.StampRoots())
		docs, bad, c, err := w.catalogDocs()
		if kerr == nil && err == nil {
			saveProblems(w.Reg.Local(), key, bad)
		}
		if err == nil {
			// The prompts learnt from history: routed, never embedded
			// into a committed cache (Docs leaves them out).
			var lerr error
			if docs, lerr = w.withLearnt(docs, routableByName(c.Skills)); lerr != nil {
				bad = append(bad, lerr)
			}
		}
		return docs, bad, err
	}
}

// ServeKey fingerprints the configuration that decides a ranking (the
// per-call output settings travel in the request): a served answer is used
// only when the server's key is the caller's.
func ServeKey(cfg *config.Config) string {
	b, _ := json.Marshal(struct {
		Roots    []string
		Blend    config.Blend
		Lexical  config.Lexical
		DynamicK config.DynamicK
		Model    config.Model
		MMR      float64
	}{cfg.Roots, cfg.Blend, cfg.Lexical, cfg.DynamicK, cfg.Model, cfg.Route.MMR})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ServeKey is ServeKey of the config, with the folders the skills are read
// from (the native folders, the team registry): a server started before
// the user config named another team registry does not answer.
func (w *Workspace) ServeKey() string {
	b, _ := json.Marshal(struct {
		Config string
		Roots  []string
	}{ServeKey(w.Cfg), w.StampRoots()})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
