package workspace

import (
	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
)

// PromptEnv is the prompt hook's view of the workspace: its resolved
// settings (which megagit saves for megagit-hook), the skills as documents,
// and the model, loaded without a word on any stream.
func (w *Workspace) PromptEnv() *inject.Env {
	indexDocs := w.indexDocs()
	return &inject.Env{
		Root: w.Reg.Root(), Local: w.Reg.Local(), Settings: hookSettings(w.Cfg, w.Reg.Root()),
		Docs: func() ([]ranker.Doc, error) {
			docs, _, err := indexDocs()
			return docs, err
		},
		Prewarm: prewarmModel,
		Semantic: func(model string, docs []ranker.Doc) route.Dense {
			return denseOf(w.Semantic(docs, func(string) {}))
		},
	}
}

// hookSettings resolves what the prompt hook needs from the config.
func hookSettings(cfg *config.Config, root string) *inject.Settings {
	s := &inject.Settings{
		Deadline: cfg.Hook.Deadline, Shadow: cfg.Hook.Shadow, Output: cfg.Hook.Output, LogPrompts: cfg.Hook.LogPrompts,
		Route:       route.Settings{TopK: cfg.Route.TopK, NoDynamic: !cfg.Route.Dynamic, Format: cfg.Route.Format, Budget: cfg.Route.Budget},
		Roots:       cfg.Roots,
		LockTimeout: cfg.Lock.Timeout,
		Ranker:      RankerConfig(cfg),
		DynamicK:    dkOverride(cfg.DynamicK),
		ServeKey:    ServeKey(cfg),
	}
	switch id := cfg.Model.ID; {
	case dense.UsesONNX(cfg, root):
		s.Model = inject.ModelONNX
	case cfg.Model.Dir != "":
		s.Model = inject.ModelOther
	case id == "" || id == "none" || id == "lexical":
		s.Model = inject.ModelNone
	case id == embedcache.BuiltinID:
		s.Model = inject.ModelBuiltin
	default:
		s.Model = inject.ModelOther // megagit warns and routes lexically
	}
	return s
}

// prewarmModel starts loading a static model (the tokenizer and, for the
// built-in model, its table) on another core while the prompt hook reads
// the compiled index: both load once per process, so Semantic then waits
// for this load instead of starting its own.
func prewarmModel(model string) {
	load := func(f func()) {
		go func() {
			// A panic must not crash the hook (it always exits 0): the
			// worker then meets the failed load and logs it.
			defer func() { _ = recover() }()
			f()
		}()
	}
	switch model {
	case inject.ModelBuiltin:
		load(func() { _, _ = embedcache.Builtin() })
	case inject.ModelOther:
		load(func() { _, _ = embedcache.DefaultTokenizer() })
	}
}
