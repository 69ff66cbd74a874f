package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/dense"
)

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
	s, err := dense.New(emb, prof, docs, dirs, func(msg string) { fmt.Fprintf(a.errOut, "megagit: warning: %s\n", msg) })
	switch {
	case errors.Is(err, dense.ErrNoVectors):
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
	s, err := dense.New(emb, prof, docs, nil, func(string) {})
	if err != nil {
		fmt.Fprintf(a.errOut, "megagit: warning: %v; evaluating lexically\n", err)
		return nil
	}
	return s
}
