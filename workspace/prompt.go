package workspace

import (
	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/route/index"
)

// PromptEnv is the prompt hook's view of the workspace: its resolved
// settings (which megagit saves for megagit-hook), the rebuild of the
// compiled index, and the model, loaded without a word on any stream.
func (w *Workspace) PromptEnv() *inject.Env {
	quiet := func(string) {}
	s, emb := hookSettings(w.Cfg, w.Reg.Root())
	s.Roots, s.Watch, s.ServeKey = w.StampRoots(), w.WatchFiles(), w.ServeKey()
	if s.Model == inject.ModelONNX {
		s.ServeFiles = w.ServeFiles()
	}
	for _, p := range w.Problems { // the team registry's too: StampRoots read it
		s.Notes = append(s.Notes, p.Error())
	}
	e := &inject.Env{
		Root: w.Reg.Root(), Local: w.Reg.Local(), Settings: s,
		Refresh: func() (index.Compiled, error) {
			c, _, _, err := w.Compiled(quiet, s.Route.Format == "compose")
			return c, err
		},
	}
	if emb != nil {
		e.Query = func() (func(string) ([]float32, error), string, error) {
			return dense.QueryEmbedder(emb), embedcache.CacheKey(emb), nil
		}
	}
	if fb, _ := dense.Fallback(w.Cfg, w.Reg.Root()); fb != nil && s.FallbackKey != "" {
		e.Fallback = func() (func(string) ([]float32, error), string, error) {
			return dense.QueryEmbedder(fb), embedcache.CacheKey(fb), nil
		}
	}
	return e
}

// RouteSettings are the config's per-prompt choices, as the prompt hook,
// route, why and the MCP search use them.
func RouteSettings(cfg *config.Config) route.Settings {
	return route.Settings{TopK: cfg.Route.TopK, NoDynamic: !cfg.Route.Dynamic, Format: cfg.Route.Format, Budget: cfg.Route.Budget,
		Deny: cfg.Deny, Force: cfg.Force, Allow: cfg.Audit.Allow}
}

// hookSettings resolves what the prompt hook needs from the config, and
// loads the static model it routes with, if any.
func hookSettings(cfg *config.Config, root string) (*inject.Settings, models.Embedder) {
	s := &inject.Settings{
		Deadline: cfg.Hook.Deadline, Shadow: cfg.Hook.Shadow, Output: cfg.Hook.Output, LogPrompts: cfg.Hook.LogPrompts,
		Refresh:     cfg.Hook.Refresh,
		Serve:       cfg.Hook.Serve,
		ServeIdle:   cfg.Serve.Idle,
		Route:       RouteSettings(cfg),
		Roots:       cfg.Roots,
		LockTimeout: cfg.Lock.Timeout,
		Ranker:      RankerConfig(cfg),
		DynamicK:    dkOverride(cfg.DynamicK),
		ServeKey:    ServeKey(cfg),
		ModelID:     cfg.Model.ID,
	}
	switch id := dense.ModelID(cfg); {
	case dense.UsesONNX(cfg, root):
		s.Model, s.ModelID = inject.ModelONNX, dense.ONNXModelID(cfg, root)
		if fb, prof := dense.Fallback(cfg, root); fb != nil {
			s.FallbackID, s.FallbackKey, s.FallbackDense = fb.ID(), embedcache.CacheKey(fb), dense.RouteProfile(prof)
		}
	case cfg.Model.Dir != "":
		s.Model = inject.ModelOther
	case id == "" || id == "none" || id == "lexical":
		s.Model = inject.ModelNone
	case models.IsBuiltin(id):
		s.Model = inject.ModelBuiltin
	default:
		s.Model = inject.ModelNone // megagit warns and routes lexically
	}
	if s.Model == inject.ModelBuiltin || s.Model == inject.ModelOther {
		// The model's key and profile, so megagit-hook can use the
		// compiled index's vectors; a model that does not load routes
		// lexically, as megagit does.
		emb, prof, err := dense.Load(cfg, root)
		if err != nil || emb == nil {
			s.Model = inject.ModelNone
			return s, nil
		}
		s.ModelID, s.ModelKey, s.Dense = emb.ID(), embedcache.CacheKey(emb), dense.RouteProfile(prof)
		if cfg.Model.Dir != "" {
			s.ModelDir = dense.ModelDirPath(cfg, root)
		}
		return s, emb
	}
	return s, nil
}

// ServeFiles are the files that decide whether `megagit serve` can load
// the registry's model (an ONNX model's files, ONNX Runtime, the config
// files, the committed vectors): a server that could not start is tried
// again once one of them changes.
func (w *Workspace) ServeFiles() []string {
	out := dense.ONNXFiles(w.Cfg, w.Reg.Root())
	return append(append(out, ConfigFile(w.Reg.Root())), w.WatchFiles()...)
}
