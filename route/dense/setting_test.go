package dense

import (
	"errors"
	"fmt"
	"testing"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
)

// TestIDSetting: `model use ID` stores the canonical id and refuses an
// unknown one with a hint and a configuration error (exit 5).
func TestIDSetting(t *testing.T) {
	set, err := IDSetting("none")
	if err != nil || set.Subject != "use model none" || set.Values["model.id"] != "none" {
		t.Errorf("IDSetting(none) = %+v, %v", set, err)
	}
	set, err = IDSetting(models.BuiltinID)
	if err != nil || set.Values["model.id"] != models.BuiltinID || len(set.Notes) != 0 {
		t.Errorf("IDSetting(%s) = %+v, %v; want no notes", models.BuiltinID, set, err)
	}
	_, err = IDSetting("nope")
	var he *HintError
	if !errors.As(err, &he) || !errors.Is(err, config.ErrInvalid) || he.Hint != "run `megagit model list` to see the known models" {
		t.Errorf("IDSetting(nope) = %v; want a HintError wrapping config.ErrInvalid", err)
	}
}

// TestLoadHint: only a missing runtime or missing model files get a hint.
func TestLoadHint(t *testing.T) {
	cfg := &config.Config{}
	if h := LoadHint(cfg, errors.New("other")); h != "" {
		t.Errorf("LoadHint(other) = %q, want none", h)
	}
	cfg.Model.Dir = "m"
	if h := LoadHint(cfg, fmt.Errorf("x: %w", models.ErrNoModel)); h == "" {
		t.Error("LoadHint(ErrNoModel) with model.dir: no hint")
	}
	if h := LoadHint(cfg, models.ErrNoRuntime); h == "" {
		t.Error("LoadHint(ErrNoRuntime): no hint")
	}
}
