package dense

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
)

// Load resolves the configured model and its profile (with the config's
// fusion override); a nil embedder means none. root is the registry's
// root ("" outside one), against which a relative model.dir resolves.
func Load(cfg *config.Config, root string) (models.Embedder, models.Profile, error) {
	emb, prof, err := resolve(cfg, root)
	if cfg.Model.FusionW > 0 {
		prof.FusionW = cfg.Model.FusionW
	}
	if cfg.Model.AbsFloor > 0 {
		prof.AbsFloor = cfg.Model.AbsFloor
	}
	return emb, prof, err
}

// resolve opens the configured model: model.dir's folder, or model.id
// (the built-in model, or an ONNX profile installed by `megagit model
// pull`).
func resolve(cfg *config.Config, root string) (models.Embedder, models.Profile, error) {
	if cfg.Model.Dir != "" {
		return loadFolder(cfg, root)
	}
	id := ModelID(cfg)
	switch {
	case id == "" || id == "none" || id == "lexical":
		return nil, models.Profile{}, nil
	case models.IsBuiltin(id):
		m, err := models.BuiltinModel(id)
		if err != nil {
			return nil, models.Profile{}, err
		}
		prof, _ := models.BuiltinProfile(id)
		return m, prof, nil
	}
	if prof, known := onnxProfile(id); known {
		return loadONNXProfile(cfg, prof)
	}
	return nil, models.Profile{}, fmt.Errorf("model %q is not available in this build (run `megagit model list`)", id)
}

// ModelID is the model id a registry routes with: model.id, except that a
// built-in model an earlier release shipped is the built-in model now.
func ModelID(cfg *config.Config) string {
	if models.IsRetired(cfg.Model.ID) {
		return models.BuiltinID
	}
	return cfg.Model.ID
}

// SayRetired tells say, when model.id names a built-in model an earlier
// release shipped, that the built-in model routes instead (ModelID).
func SayRetired(cfg *config.Config, say func(line string)) {
	if cfg.Model.Dir == "" && models.IsRetired(cfg.Model.ID) {
		say("megagit: warning: " + models.RetiredNote(cfg.Model.ID))
	}
}

// ForRegistry is the configured model's channel over a registry's docs,
// its vectors read from the committed cache under root and kept in the
// local cache under localDir; nil means routing falls back to lexical.
// say gets each line to print on stderr (warnings, a note), since
// routing's fallback must be visible but this package prints nothing.
func ForRegistry(cfg *config.Config, root, localDir string, docs []ranker.Doc, say func(line string)) *Channel {
	emb, prof := Model(cfg, root, say)
	if emb == nil {
		return nil
	}
	v, err := RegistryVectors(emb, prof, root, localDir, docs, say)
	if err != nil || v == nil {
		return nil
	}
	NoteProfile(emb, prof, say)
	return &Channel{Emb: emb, Prof: prof, Vecs: v}
}

// Model is the configured model and its profile for the registry at root,
// nil when routing is lexical (model.id none, or the model cannot be
// loaded: say gets the warning).
func Model(cfg *config.Config, root string, say func(line string)) (models.Embedder, models.Profile) {
	SayRetired(cfg, say)
	emb, prof, err := Load(cfg, root)
	if err != nil {
		if !errors.Is(err, models.ErrNoBuiltin) || !models.IsBuiltin(ModelID(cfg)) {
			say(fmt.Sprintf("megagit: warning: %v; routing lexically", err))
		}
		return nil, models.Profile{}
	}
	return emb, prof
}

// NoteProfile says, when a model routes with the defaults of an unknown
// model, that nothing about it was measured and how to pick a profile.
func NoteProfile(emb models.Embedder, prof models.Profile, say func(line string)) {
	if emb != nil && isDefaultProfile(prof) {
		say(defaultProfileNote(emb.ID()))
	}
}

// RegistryVectors embeds docs with emb through the registry's caches (the
// committed one under root, read only, and the local one under localDir);
// nil, with the warning passed to say, means routing stays lexical.
func RegistryVectors(emb models.Embedder, prof models.Profile, root, localDir string, docs []ranker.Doc, say func(line string)) (*index.Vectors, error) {
	committed := embedcache.CacheDir(root, emb.ID())
	dirs := []string{committed, filepath.Join(localDir, "embeddings", filepath.Base(committed))}
	s, err := New(emb, prof, docs, dirs, func(msg string) { say("megagit: warning: " + msg) })
	switch {
	case errors.Is(err, ErrNoVectors):
		say(fmt.Sprintf("megagit: warning: no vectors for model %s yet: run `megagit embed`; routing lexically", emb.ID()))
		return nil, err
	case err != nil:
		say(fmt.Sprintf("megagit: warning: embedding skills with %s failed: %v; routing lexically", emb.ID(), err))
		return nil, err
	}
	return s.Vecs, nil
}

// Semantic is emb's dense channel over stored vectors (nil: lexical).
func Semantic(emb models.Embedder, prof models.Profile, v *index.Vectors) *route.Semantic {
	if emb == nil || v == nil || v.Key != embedcache.CacheKey(emb) {
		return nil
	}
	return &route.Semantic{Model: emb.ID(), Vecs: v, Prof: RouteProfile(prof), Embed: QueryEmbedder(emb)}
}

// ForBench is the configured model's channel over a benchmark's docs,
// embedded without caches; nil means the benchmark is evaluated
// lexically, with a warning line passed to say.
func ForBench(cfg *config.Config, docs []ranker.Doc, say func(line string)) *Channel {
	SayRetired(cfg, say)
	emb, prof, err := Load(cfg, "")
	if err != nil || emb == nil {
		if err != nil {
			say(fmt.Sprintf("megagit: warning: %v; evaluating lexically", err))
		}
		return nil
	}
	s, err := New(emb, prof, docs, nil, func(string) {})
	if err != nil {
		say(fmt.Sprintf("megagit: warning: %v; evaluating lexically", err))
		return nil
	}
	return s
}

// Fallback is the model the prompt hook routes with until an ONNX
// model's `megagit serve` answers: the built-in model, with its own
// profile (none of the config's model.* overrides, which are the ONNX
// model's) and its shipped gate. nil when the configured model is no ONNX
// model, or this build has no built-in model.
func Fallback(cfg *config.Config, root string) (models.Embedder, models.Profile) {
	if !UsesONNX(cfg, root) {
		return nil, models.Profile{}
	}
	m, err := models.BuiltinModel(models.BuiltinID)
	if err != nil {
		return nil, models.Profile{}
	}
	prof, _ := models.BuiltinProfile(models.BuiltinID)
	return m, prof
}
