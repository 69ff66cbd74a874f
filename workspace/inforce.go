package workspace

import (
	"fmt"
	"strconv"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route/dense"
)

// InForce is a setting's value as routing uses it, where the config's
// value (0 or "") means "megagit's default": the ranker's measured
// default, or the model's profile. Why says where it comes from.
type InForce struct {
	Value any
	Why   string
}

// SettingsInForce resolves, by key, what the settings left at their
// default (0 or "") mean: the caller shows it for a setting whose source is
// the default; a key not in the map is in force as it reads.
func SettingsInForce(cfg *config.Config) map[string]InForce {
	rc := RankerConfig(cfg)
	out := map[string]InForce{}
	builtin := func(key string, configured, v float64) {
		if configured <= 0 {
			out[key] = InForce{Value: round(v), Why: "megagit's default"}
		}
	}
	builtin("lexical.k1", cfg.Lexical.K1, rc.K1)
	if cfg.Lexical.B <= 0 {
		out["lexical.b"] = InForce{Value: round(rc.Fields.Name.B), Why: "megagit's default, every field"}
	}
	builtin("lexical.w_name", cfg.Lexical.WName, rc.Fields.Name.Weight)
	builtin("lexical.w_description", cfg.Lexical.WDescription, rc.Fields.Description.Weight)
	builtin("lexical.w_headings", cfg.Lexical.WHeadings, rc.Fields.Headings.Weight)
	builtin("lexical.w_triggers", cfg.Lexical.WTriggers, rc.Fields.Triggers.Weight)
	builtin("lexical.w_contexts", cfg.Lexical.WCtx, rc.Fields.Contexts.Weight)
	switch {
	case cfg.Lexical.WBody < 0:
		out["lexical.w_body"] = InForce{Value: 0, Why: "below 0: the body is not indexed"}
	default:
		builtin("lexical.w_body", cfg.Lexical.WBody, rc.Fields.Body.Weight)
	}
	if cfg.Lexical.FastMin <= 0 {
		out["lexical.fast_min"] = InForce{Value: "off", Why: "0 turns the lexical fast path off"}
	}
	dk := rc.DynamicK
	builtin("dynamic_k.abstain_z_top1", cfg.DynamicK.AbstainZTop1, dk.AbstainZTop1)
	builtin("dynamic_k.abstain_z_ent", cfg.DynamicK.AbstainZEnt, dk.AbstainZEnt)
	builtin("dynamic_k.ambig_z_ent", cfg.DynamicK.AmbigZEnt, dk.AmbigZEnt)
	builtin("dynamic_k.very_ambig_z_ent", cfg.DynamicK.VeryAmbigZEnt, dk.VeryAmbigZEnt)

	id := dense.ModelID(cfg)
	lexical := cfg.Model.Dir == "" && (id == "" || id == "none" || id == "lexical")
	switch {
	case lexical:
		builtin("dynamic_k.abs_floor", cfg.DynamicK.AbsFloor, dk.AbsFloor)
		if cfg.DynamicK.Tier == "" {
			out["dynamic_k.tier"] = InForce{Value: "lexical", Why: "model.id is none: the lexical profile"}
		}
		for _, k := range []string{"model.fusion_w", "model.abs_floor"} {
			out[k] = InForce{Value: "unused", Why: "model.id is none: routing is lexical"}
		}
	case cfg.Model.Dir != "":
		for _, k := range []string{"model.fusion_w", "model.abs_floor", "dynamic_k.tier", "dynamic_k.abs_floor"} {
			out[k] = InForce{Value: "from the model", Why: "the profile of the model in model.dir (megagit model list shows it)"}
		}
	default:
		prof, known := models.ProfileFor(id)
		from := prof.ID + "'s profile"
		if !known {
			from = "no profile is known for " + id + ": neutral defaults"
		}
		w := prof.FusionW
		if cfg.Model.FusionW > 0 {
			w = cfg.Model.FusionW
		} else {
			out["model.fusion_w"] = InForce{Value: round(w), Why: from}
		}
		floor := prof.AbsFloor
		if cfg.Model.AbsFloor > 0 {
			floor = cfg.Model.AbsFloor
		} else {
			out["model.abs_floor"] = InForce{Value: round(floor), Why: from}
		}
		if cfg.DynamicK.Tier == "" && prof.Tier != "" {
			out["dynamic_k.tier"] = InForce{Value: prof.Tier, Why: from}
		}
		if cfg.DynamicK.AbsFloor <= 0 {
			out["dynamic_k.abs_floor"] = InForce{Value: round((1-w)*dk.AbsFloor + w*floor),
				Why: fmt.Sprintf("the lexical floor %s and model.abs_floor mixed by model.fusion_w; where the gate applies it decides instead", strconv.FormatFloat(dk.AbsFloor, 'f', -1, 64))}
		}
	}
	return out
}

// round keeps four decimals, as settings are written.
func round(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 4, 64), 64)
	return f
}
