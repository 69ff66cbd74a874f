package main

import (
	"errors"
	"fmt"
	"math"
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

// resolveEmbedder opens the configured model: model.dir's folder, or
// model.id (the built-in model, or an ONNX profile installed by `megagit
// model pull`).
func resolveEmbedder(cfg *config.Config, root string) (embedcache.Embedder, embedcache.Profile, error) {
	if cfg.Model.Dir != "" {
		return loadFolder(cfg, root)
	}
	id := cfg.Model.ID
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
	if prof, known := onnxProfile(id); known {
		return loadONNXProfile(cfg, prof)
	}
	return nil, embedcache.Profile{}, fmt.Errorf("model %q is not available in this build (run `megagit model list`)", id)
}

// newSemantic embeds every doc, reading and filling the caches in dirs
// (first = committed cache, read only; last = local cache, written). Only
// a static model (cheap) embeds a registry no cache knows: a slower model
// fails with errNoVectors until `megagit embed` has run.
func newSemantic(emb embedcache.Embedder, prof embedcache.Profile, docs []ranker.Doc, cacheDirs []string, warn func(string)) (*semantic, error) {
	vecs, err := cachedVectors(emb, embedItems(docs), cacheDirs, warn, prof.Kind == "static")
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
// computes the rest through the writable (last) cache, saving it. Unless
// cheap, it computes nothing when no cache holds a vector of the model
// (errNoVectors): embedding a whole registry is `megagit embed`'s job.
func cachedVectors(emb embedcache.Embedder, items []embedcache.DocText, dirs []string, warn func(string), cheap bool) ([][]float32, error) {
	if len(dirs) == 0 {
		texts := make([]string, len(items))
		for i, it := range items {
			texts[i] = it.Text
		}
		return emb.Embed(texts, embedcache.Document)
	}
	out := make([][]float32, len(items))
	var missing []int
	held := 0 // rows of this model in any cache
	drift := driftCheck(emb, warn)
	for _, dir := range dirs[:len(dirs)-1] {
		c := embedcache.OpenCache(dir, embedcache.CacheKey(emb), emb.Dim(), warn)
		if drift(dir, c) {
			continue
		}
		held += c.Len() - anchorRows(c)
		for i, it := range items {
			if out[i] == nil {
				out[i], _ = c.View(embedcache.TextSHA(it.Text)) // read only: scored, never changed
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
	if drift(dirs[len(dirs)-1], local) {
		local.Retain(func(string, string, string) bool { return false }) // rebuilt below
	}
	if !cheap && held+local.Len()-anchorRows(local) == 0 {
		return nil, errNoVectors
	}
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

// anchorRows is 1 when c holds a drift anchor row, which is no skill's.
func anchorRows(c *embedcache.Cache) int {
	if _, ok := c.Anchor(); ok {
		return 1
	}
	return 0
}

// driftCheck returns a test of a cache's drift anchor against emb (seed
// 001 risk 1): true, with a warning, when the cache's rows were written by
// a different model under the same key and must not be scored. The anchor
// is embedded at most once per process, and only for a cache that has one.
func driftCheck(emb embedcache.Embedder, warn func(string)) func(dir string, c *embedcache.Cache) bool {
	var fresh []float32
	return func(dir string, c *embedcache.Cache) bool {
		stored, ok := c.Anchor()
		if !ok {
			return false
		}
		if fresh == nil {
			v, err := embedcache.EmbedAnchor(emb)
			if err != nil {
				return false
			}
			fresh = v
		}
		if cos := embedcache.Cosine(stored, fresh); cos < embedcache.DriftThreshold {
			warn(fmt.Sprintf("%s was written by a different %s (drift anchor cosine %.2f < %.2f): ignoring it; run `megagit embed --all`",
				dir, emb.ID(), cos, embedcache.DriftThreshold))
			return true
		}
		return false
	}
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
	switch {
	case errors.Is(err, errNoVectors):
		fmt.Fprintf(a.errOut, "megagit: warning: no vectors for model %s yet: run `megagit embed`; routing lexically\n", emb.ID())
		return nil
	case err != nil:
		fmt.Fprintf(a.errOut, "megagit: warning: embedding skills with %s failed: %v; routing lexically\n", emb.ID(), err)
		return nil
	}
	if isDefaultProfile(prof) {
		fmt.Fprintln(a.errOut, defaultProfileNote(emb.ID()))
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
