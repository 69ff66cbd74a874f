package workspace

import (
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/registry"
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
