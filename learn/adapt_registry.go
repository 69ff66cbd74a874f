package learn

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
)

// LedgerVerdicts are adapt's examples from a registry's ledgers: the
// explicit HELPFUL and HARMFUL verdicts that carry a context. Ledgers are a
// map, so the verdicts are ordered by skill (within a skill the ledger
// order stays) and duplicates keep their first spelling whatever the map
// order.
func LedgerVerdicts(ledgers map[string][]ledger.Entry) []AdaptVerdict {
	var vs []AdaptVerdict
	for _, entries := range ledgers {
		for _, en := range entries {
			if en.Source != ledger.SourceExplicit || en.Action != "" || strings.TrimSpace(en.Context) == "" {
				continue
			}
			if en.Verdict == "HELPFUL" || en.Verdict == "HARMFUL" {
				vs = append(vs, AdaptVerdict{Skill: en.Skill, Context: en.Context, Helpful: en.Verdict == "HELPFUL"})
			}
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Skill < vs[j].Skill })
	return vs
}

// Saved is where SaveAdapted wrote a model.
type Saved struct {
	Dir    string // the model folder, absolute
	Commit string // the commit that holds it; "" when it was only written
}

// SaveAdapted writes the model adapt kept, named id, to out (default
// .megagit/models/<id> in the registry). A folder inside the registry's
// .megagit/models/ is committed (and only it), so the team gets it with
// the next pull; any other folder is just written. The model's recipe
// records the data, the training settings and the decision.
func SaveAdapted(reg *registry.Registry, out, id string, base *models.StaticModel, d AdaptData, res *AdaptResult, holdout float64) (Saved, error) {
	root := reg.Root()
	if out == "" {
		out = filepath.Join(root, filepath.FromSlash(registry.ModelsDir), id)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return Saved{}, err
	}
	tc := res.Train
	recipe := map[string]any{
		"adapter": "megagit model adapt", "base_model": base.ID(), "base_dtype": base.Meta().Dtype,
		"source": "ledger: explicit verdicts with a context", "helpful_contexts": d.Helpful(), "trained": len(d.Train),
		"held_back": len(d.Held), "harmful_contexts": len(d.Harmful), "contradictory_dropped": d.Contradictory,
		"skills": len(d.Skills), "skills_with_evidence": d.SkillsWithEvidence, "pairs": res.Pairs,
		"holdout": holdout, "epochs": tc.Epochs, "batch": tc.Batch, "lr": tc.LR, "warmup_frac": tc.WarmupFrac,
		"scale": tc.Scale, "seed": tc.Seed, "optimizer": "Adam (warm start from the base table)",
		"before": res.Before, "after": res.After, "decision": res.Why,
	}
	rel, err := filepath.Rel(root, abs)
	inModels := err == nil && filepath.IsLocal(rel) && strings.HasPrefix(filepath.ToSlash(rel), registry.ModelsDir+"/")
	if !inModels {
		if err := models.SaveStatic(abs, id, res.Dim, res.Table, true, recipe); err != nil {
			return Saved{}, err
		}
		return Saved{Dir: abs}, nil
	}
	tmp, err := os.MkdirTemp("", "megagit-adapt-")
	if err != nil {
		return Saved{}, err
	}
	defer os.RemoveAll(tmp)
	if err := models.SaveStatic(tmp, id, res.Dim, res.Table, true, recipe); err != nil {
		return Saved{}, err
	}
	files := map[string][]byte{}
	for _, name := range []string{"model.json", "vectors.npy", "scales.npy"} {
		data, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			return Saved{}, err
		}
		files[filepath.ToSlash(rel)+"/"+name] = data
	}
	msg := fmt.Sprintf("model(%s): adapt %s to this registry's verdicts\n\n%s.\n\nMegagit-Action: adapt\nMegagit-Model: %s\nMegagit-Base-Model: %s\n",
		id, base.ID(), res.Why, id, base.ID())
	hash, err := reg.CommitFiles(msg, files)
	if err != nil {
		return Saved{}, err
	}
	saved := Saved{Dir: abs}
	if !hash.IsZero() {
		saved.Commit = hash.String()
	}
	return saved, nil
}
