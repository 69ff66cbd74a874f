package models

import "strings"

// Profile is what megagit knows about a model: how to pool and prefix for
// it, and how its scores feed ranking (fusion weight with the lexical
// channel, absolute floor and K tier for dynamic K). Measured says whether
// the ranking numbers were measured (with `megagit eval`, or, for the
// known ONNX models, on the skill-routing benchmark their floors come from)
// or estimated.
type Profile struct {
	ID          string   `json:"id"`
	Kind        string   `json:"kind"` // "static" or "onnx"
	Builtin     bool     `json:"builtin"`
	HubID       string   `json:"hub_id,omitempty"`  // model hub repository, e.g. "BAAI/bge-small-en-v1.5"
	Aliases     []string `json:"aliases,omitempty"` // other names that resolve to this profile
	Dim         int      `json:"dim"`
	Pooling     string   `json:"pooling"` // mean | cls | last
	QueryPrefix string   `json:"query_prefix,omitempty"`
	DocPrefix   string   `json:"doc_prefix,omitempty"`
	Normalize   bool     `json:"normalize"`
	FusionW     float64  `json:"fusion_weight"`
	AbsFloor    float64  `json:"abs_floor"`
	Tier        string   `json:"tier"`
	Measured    bool     `json:"measured"`
	Note        string   `json:"note,omitempty"`

	// Inputs are the ONNX graph inputs fed, by name (input_ids,
	// attention_mask, token_type_ids, position_ids); nil asks the model
	// file once at load. Output is the token-states output ("" means
	// last_hidden_state). Hardcoding both spares loading the model twice.
	Inputs []string `json:"inputs,omitempty"`
	Output string   `json:"output,omitempty"`

	// Revision and Files say what `megagit model pull` downloads from the
	// model hub. A file without a SHA256 is not pinned: pull refuses it
	// unless told --insecure-no-pin.
	Revision string      `json:"revision,omitempty"`
	Files    []ModelFile `json:"files,omitempty"`
}

// ModelFile is one file of a model hub repository that `model pull` fetches.
type ModelFile struct {
	Name   string `json:"name"`             // local name in the model folder: model.onnx, tokenizer.json, ...
	Path   string `json:"path"`             // path inside the hub repository
	SHA256 string `json:"sha256,omitempty"` // pinned digest; empty = unknown
	Size   int64  `json:"size,omitempty"`   // bytes, for progress; 0 = unknown
}

// Pinned reports whether every download of the profile has a sha256.
func (p Profile) Pinned() bool {
	if len(p.Files) == 0 {
		return false
	}
	for _, f := range p.Files {
		if f.SHA256 == "" {
			return false
		}
	}
	return true
}

// StaticProfile is the built-in model's profile, megagit-static-v3. Its
// fusion weight, floor and tier are what a sweep of `megagit eval` over
// them picks on the development benchmarks; its abstention gate
// (route/gates) replaces the floor wherever the catalog is large enough.
var StaticProfile = Profile{
	ID: BuiltinID, Kind: "static", Builtin: true, Dim: 256, Pooling: "mean", Normalize: true,
	FusionW: 0.4, AbsFloor: 0.20, Tier: "medium", Measured: true,
}

// BuiltinProfile is the profile of the built-in model id.
func BuiltinProfile(id string) (Profile, bool) {
	for _, p := range []Profile{StaticProfile} {
		if p.ID == id {
			return p, true
		}
	}
	return Profile{}, false
}

// Graph inputs of the two export families we know.
var (
	bertInputs    = []string{"input_ids", "attention_mask", "token_type_ids"}
	robertaInputs = []string{"input_ids", "attention_mask"}
)

const (
	bgeQueryPrefix = "Represent this sentence for searching relevant passages: "
	// onnxFusionW is a placeholder until `megagit eval` tunes each model.
	onnxFusionW = 0.5
	untuned     = "fusion weight not tuned: re-tune with megagit eval"
)

// hfFiles is the usual layout of a sentence-transformers ONNX export on the
// Hugging Face hub, unpinned: nobody has recorded the digests yet.
func hfFiles() []ModelFile {
	return []ModelFile{
		{Name: "model.onnx", Path: "onnx/model.onnx"},
		{Name: "tokenizer.json", Path: "tokenizer.json"},
	}
}

// onnxProfiles are the ONNX sentence models megagit knows: the models
// whose absolute floors and tiers were set on a skill-routing benchmark
// (ranker's model profiles hold the same floors), plus all-MiniLM-L6-v2.
// A floor guessed from the model's family rather than measured is
// Measured: false. Dimensions, pooling and prefixes are the model cards'.
var onnxProfiles = []Profile{
	{ID: "bge-m3", Kind: "onnx", HubID: "BAAI/bge-m3", Aliases: []string{"BGE-M3"},
		Dim: 1024, Pooling: "cls", Normalize: true, Inputs: robertaInputs,
		FusionW: onnxFusionW, AbsFloor: 0.60, Tier: "strong", Measured: true,
		Note: "XLM-RoBERTa tokenizer (Unigram) and a >2 GB export with external data: use --dir; " + untuned},
	{ID: "skillret-0.6b", Kind: "onnx", Aliases: []string{"SkillRet-0.6B", "SkillRet"},
		Dim: 1024, Pooling: "last", Normalize: true, Inputs: []string{"input_ids", "attention_mask", "position_ids"},
		FusionW: onnxFusionW, AbsFloor: 0.40, Tier: "strong", Measured: true,
		Note: "hub id and query instruction unknown here: use --dir with your export; " + untuned},
	{ID: "qwen3-embedding-0.6b", Kind: "onnx", HubID: "Qwen/Qwen3-Embedding-0.6B", Aliases: []string{"Qwen3-0.6B"},
		Dim: 1024, Pooling: "last", Normalize: true, Inputs: []string{"input_ids", "attention_mask", "position_ids"},
		QueryPrefix: "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:",
		FusionW:     onnxFusionW, AbsFloor: 0.35, Tier: "strong", Measured: true,
		Note: "decoder model, byte-level BPE tokenizer; exports without KV-cache inputs only: use --dir; " + untuned},
	{ID: "bge-small-en-v1.5", Kind: "onnx", HubID: "BAAI/bge-small-en-v1.5", Aliases: []string{"BGE-small-v1.5", "bge-small"},
		Dim: 384, Pooling: "cls", QueryPrefix: bgeQueryPrefix, Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.70, Tier: "weak", Measured: true,
		Revision: "main", Files: hfFiles(), Note: untuned},
	{ID: "bge-large-en-v1.5", Kind: "onnx", HubID: "BAAI/bge-large-en-v1.5", Aliases: []string{"BGE-large-v1.5", "bge-large"},
		Dim: 1024, Pooling: "cls", QueryPrefix: bgeQueryPrefix, Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.65, Tier: "medium", Measured: false,
		Note: "abs floor estimated, not measured; " + untuned},
	{ID: "e5-small-v2", Kind: "onnx", HubID: "intfloat/e5-small-v2", Aliases: []string{"e5-small"},
		Dim: 384, Pooling: "mean", QueryPrefix: "query: ", DocPrefix: "passage: ", Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.40, Tier: "weak", Measured: false,
		Note: "abs floor estimated, not measured; " + untuned},
	{ID: "e5-base-v2", Kind: "onnx", HubID: "intfloat/e5-base-v2", Aliases: []string{"e5-base"},
		Dim: 768, Pooling: "mean", QueryPrefix: "query: ", DocPrefix: "passage: ", Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.45, Tier: "medium", Measured: false,
		Note: "abs floor estimated, not measured; " + untuned},
	{ID: "all-minilm-l6-v2", Kind: "onnx", HubID: "sentence-transformers/all-MiniLM-L6-v2", Aliases: []string{"all-MiniLM-L6-v2", "minilm"},
		Dim: 384, Pooling: "mean", Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0, Tier: "weak", Measured: false,
		Revision: "main", Files: hfFiles(), Note: "tier estimated, no floor; " + untuned},
}

// profiles lists the known models.
var profiles = append([]Profile{StaticProfile}, onnxProfiles...)

// Profiles returns every known profile.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// ProfileFor returns the profile of a model id (case-insensitive; its id,
// hub id or an alias, with or without an organisation prefix), and whether
// it is known. An unknown model gets a neutral default: mean pooling, no
// prefix, equal fusion, no floor, graph inputs read from the model file.
func ProfileFor(id string) (Profile, bool) {
	key := strings.ToLower(id)
	for _, p := range profiles {
		names := append([]string{p.ID, p.HubID}, p.Aliases...)
		for _, n := range names {
			n = strings.ToLower(n)
			if n != "" && (key == n || strings.HasSuffix(key, "/"+n)) {
				return p, true
			}
		}
	}
	return Profile{ID: id, Kind: "onnx", Pooling: "mean", Normalize: true, FusionW: 0.5, Tier: "strong",
		Note: "unknown model: defaults, not measured"}, false
}
