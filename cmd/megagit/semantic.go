package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/ranker"
)

// semantic is the dense channel: an embedder, each skill's vectors and the
// model's profile. A nil *semantic means lexical-only routing.
type semantic struct {
	emb  embedcache.Embedder
	prof embedcache.Profile
	full [][]float32 // per doc: name + description
	name [][]float32 // per doc: name alone
}

// docTexts are the two texts embedded per skill (seed 000: semantic =
// max(cos(q, full_doc), cos(q, name))).
func docTexts(d ranker.Doc) (full, name string) {
	name = strings.ReplaceAll(d.ID, "-", " ")
	return name + ": " + d.Description, name
}

// loadEmbedder resolves the configured model and its profile (with the
// config's fusion override); a nil embedder means none.
func loadEmbedder(cfg *config.Config, root string) (embedcache.Embedder, embedcache.Profile, error) {
	emb, prof, err := resolveEmbedder(cfg, root)
	if cfg.Model.FusionW > 0 {
		prof.FusionW = cfg.Model.FusionW
	}
	if cfg.Model.AbsFloor > 0 {
		prof.AbsFloor = cfg.Model.AbsFloor
	}
	return emb, prof, err
}

func resolveEmbedder(cfg *config.Config, root string) (embedcache.Embedder, embedcache.Profile, error) {
	id := cfg.Model.ID
	if cfg.Model.Dir != "" {
		dir := cfg.Model.Dir
		if !filepath.IsAbs(dir) && root != "" {
			dir = filepath.Join(root, filepath.FromSlash(dir))
		}
		m, err := embedcache.LoadStatic(os.DirFS(dir), ".")
		if err != nil {
			return nil, embedcache.Profile{}, fmt.Errorf("model.dir %s: %w", cfg.Model.Dir, err)
		}
		prof, _ := embedcache.ProfileFor(embedcache.BuiltinID)
		prof.ID, prof.Builtin, prof.Dim = m.ID(), false, m.Dim()
		return m, prof, nil
	}
	switch id {
	case "", "none", "lexical":
		return nil, embedcache.Profile{}, nil
	case embedcache.BuiltinID:
		m, err := embedcache.Builtin()
		if err != nil {
			return nil, embedcache.Profile{}, err
		}
		return m, embedcache.StaticProfile, nil
	}
	return nil, embedcache.Profile{}, fmt.Errorf("model %q is not available in this build (run `megagit model list`)", id)
}

// newSemantic embeds every doc, reading and filling the caches in dirs
// (first = committed cache, read only; last = local cache, written).
func newSemantic(emb embedcache.Embedder, prof embedcache.Profile, docs []ranker.Doc, cacheDirs []string, warn func(string)) (*semantic, error) {
	vecs, err := cachedVectors(emb, embedItems(docs), cacheDirs, warn)
	if err != nil {
		return nil, err
	}
	s := &semantic{emb: emb, prof: prof, full: make([][]float32, len(docs)), name: make([][]float32, len(docs))}
	for i := range docs {
		s.full[i], s.name[i] = vecs[2*i], vecs[2*i+1]
	}
	return s, nil
}

// cachedVectors takes vectors from the read-only caches when present and
// computes the rest through the writable (last) cache, saving it.
func cachedVectors(emb embedcache.Embedder, items []embedcache.DocText, dirs []string, warn func(string)) ([][]float32, error) {
	if len(dirs) == 0 {
		texts := make([]string, len(items))
		for i, it := range items {
			texts[i] = it.Text
		}
		return emb.Embed(texts, embedcache.Document)
	}
	out := make([][]float32, len(items))
	var missing []int
	for _, dir := range dirs[:len(dirs)-1] {
		c := embedcache.OpenCache(dir, embedcache.CacheKey(emb), emb.Dim(), warn)
		for i, it := range items {
			if out[i] == nil {
				out[i], _ = c.Get(embedcache.TextSHA(it.Text))
			}
		}
	}
	var rest []embedcache.DocText
	for i, it := range items {
		if out[i] == nil {
			missing = append(missing, i)
			rest = append(rest, it)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	local := embedcache.OpenCache(dirs[len(dirs)-1], embedcache.CacheKey(emb), emb.Dim(), warn)
	vecs, err := embedcache.EmbedDocs(emb, local, rest)
	if err != nil {
		return nil, err
	}
	for j, i := range missing {
		out[i] = vecs[j]
	}
	if local.Dirty() {
		if err := local.Save(false); err != nil {
			warn(fmt.Sprintf("could not save the local embedding cache: %v", err))
		}
	}
	return out, nil
}

// scores is the per-doc dense relevance for a prompt, in doc order.
func (s *semantic) scores(prompt string) ([]float64, error) {
	qv, err := s.emb.Embed([]string{prompt}, embedcache.Query)
	if err != nil {
		return nil, err
	}
	q := qv[0]
	out := make([]float64, len(s.full))
	for i := range s.full {
		out[i] = math.Max(dot(q, s.full[i]), dot(q, s.name[i]))
	}
	return out, nil
}

func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// semanticFor wires the configured model into routing for a registry; any
// failure falls back to lexical routing with one warning.
func (e *env) semanticFor(a *app, docs []ranker.Doc) *semantic {
	emb, prof, err := loadEmbedder(e.cfg, e.reg.Root())
	if err != nil {
		if !errors.Is(err, embedcache.ErrNoBuiltin) || e.cfg.Model.ID != embedcache.BuiltinID {
			fmt.Fprintf(a.errOut, "megagit: warning: %v; routing lexically\n", err)
		}
		return nil
	}
	if emb == nil {
		return nil
	}
	committed := embedcache.CacheDir(e.reg.Root(), emb.ID())
	dirs := []string{committed, filepath.Join(e.reg.LocalDir(), "embeddings", filepath.Base(committed))}
	s, err := newSemantic(emb, prof, docs, dirs, func(msg string) { fmt.Fprintf(a.errOut, "megagit: warning: %s\n", msg) })
	if err != nil {
		fmt.Fprintf(a.errOut, "megagit: warning: embedding skills with %s failed: %v; routing lexically\n", emb.ID(), err)
		return nil
	}
	return s
}

// evalSemantic is the dense channel for a benchmark folder: no caches.
func evalSemantic(a *app, cfg *config.Config, docs []ranker.Doc) *semantic {
	emb, prof, err := loadEmbedder(cfg, "")
	if err != nil || emb == nil {
		if err != nil {
			fmt.Fprintf(a.errOut, "megagit: warning: %v; evaluating lexically\n", err)
		}
		return nil
	}
	s, err := newSemantic(emb, prof, docs, nil, func(string) {})
	if err != nil {
		fmt.Fprintf(a.errOut, "megagit: warning: %v; evaluating lexically\n", err)
		return nil
	}
	return s
}

// parts returns the two cosines behind one doc's semantic score.
func (s *semantic) parts(prompt string, doc int) (full, name float64, err error) {
	qv, err := s.emb.Embed([]string{prompt}, embedcache.Query)
	if err != nil {
		return 0, 0, err
	}
	return dot(qv[0], s.full[doc]), dot(qv[0], s.name[doc]), nil
}
