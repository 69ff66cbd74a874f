package workspace

import (
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
)

// MoveToRef is `megagit layout ref`: the registry's history moves to its
// own branch, and its committed config's roots to the skills folder there,
// in one move (run again, it finishes one a kill interrupted).
func (w *Workspace) MoveToRef() (registry.LayoutMove, error) {
	old, err := w.Reg.ReadConfigFile()
	if err != nil {
		return registry.LayoutMove{}, err
	}
	cfg, err := config.Set(old, map[string]any{"roots": []string{registry.RefSkillsRoot}})
	if err != nil {
		return registry.LayoutMove{}, fmt.Errorf("%s: %w", w.Reg.ConfigFile(), err)
	}
	return w.Reg.MoveToRef(cfg)
}

// Init makes a registry in dir (`megagit init`) in layout, or the one
// registry.ChooseLayout picks for LayoutAuto, with the default config of
// that layout (its skills' roots); it returns the layout made.
func Init(dir string, layout registry.Layout) (*registry.Registry, registry.Layout, gitstore.Hash, error) {
	if layout == registry.LayoutAuto {
		var err error
		if layout, err = registry.ChooseLayout(dir); err != nil {
			return nil, layout, gitstore.ZeroHash, err
		}
	}
	cfg := config.DefaultFile()
	if layout == registry.LayoutRef {
		cfg = config.DefaultFileRoots(registry.RefSkillsRoot)
	}
	reg, hash, err := registry.InitLayout(dir, cfg, layout, registry.Options{})
	return reg, layout, hash, err
}
