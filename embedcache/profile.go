package embedcache

import "strings"

// Profile is what megagit knows about a model: how to pool and prefix for
// it, and how its scores feed ranking (fusion weight with the lexical
// channel, absolute floor and K tier for dynamic K). Measured says whether
// the ranking numbers were measured with `megagit eval` or estimated.
type Profile struct {
	ID          string  `json:"id"`
	Kind        string  `json:"kind"` // "static" or "onnx"
	Builtin     bool    `json:"builtin"`
	Dim         int     `json:"dim"`
	Pooling     string  `json:"pooling"` // mean | cls | last
	QueryPrefix string  `json:"query_prefix,omitempty"`
	Normalize   bool    `json:"normalize"`
	FusionW     float64 `json:"fusion_weight"`
	AbsFloor    float64 `json:"abs_floor"`
	Tier        string  `json:"tier"`
	Measured    bool    `json:"measured"`
	Note        string  `json:"note,omitempty"`
}

// StaticProfile is the built-in model's profile. The fusion weight, floor
// and tier were chosen with `megagit eval` on both development benchmarks
// (BENCHMARKS.md, "Built-in model").
var StaticProfile = Profile{
	ID: BuiltinID, Kind: "static", Builtin: true, Dim: 256, Pooling: "mean", Normalize: true,
	FusionW: 0.3, AbsFloor: 0.25, Tier: "medium", Measured: true,
}

// profiles lists the known models; ONNX entries are added by the ONNX embedder.
var profiles = []Profile{StaticProfile}

// Profiles returns every known profile.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// ProfileFor returns the profile of a model id (case-insensitive, with or
// without an organisation prefix), and whether it is known. An unknown model
// gets a neutral default: mean pooling, no prefix, equal fusion, no floor.
func ProfileFor(id string) (Profile, bool) {
	key := strings.ToLower(id)
	for _, p := range profiles {
		pid := strings.ToLower(p.ID)
		if key == pid || strings.HasSuffix(key, "/"+pid) {
			return p, true
		}
	}
	return Profile{ID: id, Kind: "onnx", Pooling: "mean", Normalize: true, FusionW: 0.5, Tier: "strong",
		Note: "unknown model: defaults, not measured"}, false
}
