package dense

import (
	"testing"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
)

// TestBuiltinModelsLoadWithTheirGates: model.id selects each built-in model
// (an unset model.id the default, megagit-static-v3), which routes with
// its own profile and its own shipped abstention gate, never another
// model's.
func TestBuiltinModelsLoadWithTheirGates(t *testing.T) {
	def, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.Model.ID != models.BuiltinID || models.BuiltinID != "megagit-static-v3" {
		t.Fatalf("default model.id %q, built-in default %q; want megagit-static-v3", def.Model.ID, models.BuiltinID)
	}
	gates := map[*ranker.Gate]bool{}
	for _, id := range models.BuiltinIDs() {
		cfg := *def
		cfg.Model.ID = id
		emb, prof, err := Load(&cfg, "")
		if err != nil || emb == nil {
			t.Fatalf("%s: %v", id, err)
		}
		if emb.ID() != id || prof.ID != id || !prof.Builtin {
			t.Fatalf("model.id %s loaded %s with profile %s", id, emb.ID(), prof.ID)
		}
		rp := RouteProfile(prof)
		if rp.Gate == nil || rp.Gate != route.ShippedGate(id) {
			t.Fatalf("%s routes without its shipped gate (route/gates/%s.json)", id, id)
		}
		if gates[rp.Gate] {
			t.Fatalf("%s routes with another built-in model's gate", id)
		}
		gates[rp.Gate] = true
	}
}
