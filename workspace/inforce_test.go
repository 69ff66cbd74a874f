package workspace

import (
	"strings"
	"testing"

	"github.com/megagit/megagit/config"
)

// A setting left at 0 resolves to what routing uses: the ranker's default,
// the model's profile, or the model folder's; lexically, the model's
// settings are unused.
func TestSettingsInForce(t *testing.T) {
	cfg, _, err := config.LoadFiles(config.Files{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := SettingsInForce(cfg)
	if v := got["lexical.k1"]; v.Value != 1.2 {
		t.Errorf("lexical.k1 in force: %+v, want 1.2", v)
	}
	if v := got["model.fusion_w"]; v.Value == nil || v.Value == 0.0 || !strings.Contains(v.Why, "profile") {
		t.Errorf("model.fusion_w in force: %+v, want the built-in model's profile", v)
	}
	cfg.Model.Dir = "/some/model"
	if v := SettingsInForce(cfg)["model.fusion_w"]; !strings.Contains(v.Why, "model.dir") {
		t.Errorf("with model.dir: %+v, want the folder's profile named", v)
	}
	cfg.Model.Dir, cfg.Model.ID = "", "none"
	if v := SettingsInForce(cfg)["model.fusion_w"]; v.Value != "unused" {
		t.Errorf("lexical: %+v, want unused", v)
	}
	cfg.Model.ID = "some-org/unknown-model"
	if v := SettingsInForce(cfg)["model.fusion_w"]; !strings.Contains(v.Why, "no profile is known") {
		t.Errorf("unknown model: %+v, want it said that no profile is known", v)
	}
}
