package dense

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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
	// A model megagit measured routes without a warning; one it did not
	// says so, in the words of its profile.
	set, err = IDSetting("all-minilm-l6-v2")
	if err != nil || set.Values["model.id"] != "all-minilm-l6-v2" || strings.Contains(strings.Join(set.Notes, "\n"), "not measured") {
		t.Errorf("IDSetting(all-minilm-l6-v2) = %+v, %v; want no note about measuring", set, err)
	}
	set, err = IDSetting("bge-small")
	if err != nil || !slices.Contains(set.Notes, "megagit: note: bge-small-en-v1.5: not measured by megagit: its cosine floor and K tier are what another skill-routing benchmark reported, "+
		"its fusion weight is a neutral 0.5, and no abstention gate is shipped for it; measure it on your skills with `megagit eval --sweep` before relying on it") {
		t.Errorf("IDSetting(bge-small) = %+v, %v; want the note that it was not measured", set, err)
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
