package models

import "strings"

// Profile is what megagit knows about a model: how to pool and prefix for
// it, and how its scores feed ranking (fusion weight with the lexical
// channel, absolute floor and K tier for dynamic K). Measured says whether
// megagit measured the ranking numbers (with `megagit eval` on real
// skills); Note says, in a user's words, where they come from otherwise.
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
	// DupCosine is the cosine of two skills' "name: description" vectors
	// at which they say the same thing (lint's duplicates, MMR's drop),
	// measured on paraphrased copies planted among real skills; 0: not
	// measured (lint then finds duplicates by their words only, unless
	// lint.duplicate_cosine is set, and MMR compares words).
	DupCosine float64 `json:"duplicate_cosine,omitempty"`
	// InjectDupCosine is the stricter cosine at which the prompt hook's
	// MMR leaves the second of two skills out (a drop no one reads, unlike
	// lint's warning), chosen with `megagit eval`; 0: MMR compares words.
	InjectDupCosine float64 `json:"inject_duplicate_cosine,omitempty"`
	Measured        bool    `json:"measured"`
	Note            string  `json:"note,omitempty"`

	// Inputs are the ONNX graph inputs fed, by name (input_ids,
	// attention_mask, token_type_ids, position_ids); nil asks the model
	// file once at load. Output is the token-states output ("" means
	// last_hidden_state). Hardcoding both spares loading the model twice.
	Inputs []string `json:"inputs,omitempty"`
	Output string   `json:"output,omitempty"`

	// Revision and Files say what `megagit model pull` downloads from the
	// model hub. A file is pinned by its SHA256, or, marked ByReference,
	// by how the downloaded model embeds Reference's sentences; an
	// unpinned file is refused unless pull is told --insecure-no-pin.
	Revision  string      `json:"revision,omitempty"`
	Files     []ModelFile `json:"files,omitempty"`
	Reference *Reference  `json:"-"`
}

// ModelFile is one file of a model hub repository that `model pull` fetches.
type ModelFile struct {
	Name   string `json:"name"`             // local name in the model folder: model.onnx, tokenizer.json, ...
	Path   string `json:"path"`             // path inside the hub repository
	SHA256 string `json:"sha256,omitempty"` // pinned digest; empty = unknown
	Size   int64  `json:"size,omitempty"`   // bytes, for progress; 0 = unknown
	// ByReference: no digest is known, and the file is checked after the
	// download by the profile's Reference (the model embeds its sentences
	// as recorded), which needs ONNX Runtime.
	ByReference bool `json:"checked_by_reference,omitempty"`
}

// Pinned reports whether every download of the profile is checked: by its
// sha256, or by the profile's reference vectors.
func (p Profile) Pinned() bool {
	if len(p.Files) == 0 {
		return false
	}
	for _, f := range p.Files {
		if !p.pinned(f) {
			return false
		}
	}
	return true
}

// pinned says whether f is checked: it has a sha256, or it is checked by
// a reference the profile has.
func (p Profile) pinned(f ModelFile) bool {
	return f.SHA256 != "" || (f.ByReference && p.Reference != nil)
}

// ChecksByReference says whether a pull of p runs the model to check it.
func (p Profile) ChecksByReference() bool {
	for _, f := range p.Files {
		if f.ByReference && p.Reference != nil {
			return true
		}
	}
	return false
}

// StaticProfile is the built-in model's profile, megagit-static-v3. Its
// fusion weight, floor and tier are what a sweep of `megagit eval` over
// them picks on the development benchmarks; its abstention gate
// (route/gates) replaces the floor wherever the catalog is large enough.
var StaticProfile = Profile{
	ID: BuiltinID, Kind: "static", Builtin: true, Dim: 256, Pooling: "mean", Normalize: true,
	FusionW: 0.4, AbsFloor: 0.20, Tier: "medium", DupCosine: StaticDupCosine, InjectDupCosine: StaticInjectDupCosine, Measured: true,
}

// StaticDupCosine is the built-in model's duplicate cosine: of twelve
// real skills rewritten in other words, 7 reach it, and 27 of the 155,553
// pairs of distinct real skills do (mostly overlapping skills: two
// containerize-aspnet skills, qdrant-search-quality and its diagnosis);
// 0.75 finds 10 of the 12 at 51 pairs (related tools: matplotlib and
// seaborn). The model cannot tell a paraphrase from a sibling below that.
const StaticDupCosine = 0.80

// StaticInjectDupCosine is where the built-in model's MMR drops a
// duplicate: at 0.85 (3 of the 12 paraphrases, 8 distinct pairs) the
// development benchmarks' coverage is at its best (realskills-dev 0.710,
// against 0.708 at 0.80, where two gold skills that overlap at 0.85 lose
// one, and 0.706 comparing words), and 9 parts of one guide written from
// one template are all still injected.
const StaticInjectDupCosine = 0.85

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
	// onnxFusionW is the fusion weight of a profile megagit has not
	// measured: the lexical and semantic channels count the same.
	onnxFusionW = 0.5
	// notMeasured and guessed are the notes of the profiles whose ranking
	// numbers megagit never measured.
	notMeasured = "not measured by megagit: its cosine floor and K tier are what another skill-routing benchmark reported, " +
		"its fusion weight is a neutral 0.5, and no abstention gate is shipped for it; measure it on your skills with `megagit eval --sweep` before relying on it"
	guessed = "not measured: its cosine floor and K tier are guessed from its family, " +
		"its fusion weight is a neutral 0.5, and no abstention gate is shipped for it; measure it on your skills with `megagit eval --sweep` before relying on it"
)

// hfFiles is the usual layout of a sentence-transformers ONNX export on the
// Hugging Face hub, unpinned: nobody has recorded the digests yet.
func hfFiles() []ModelFile {
	return []ModelFile{
		{Name: "model.onnx", Path: "onnx/model.onnx"},
		{Name: "tokenizer.json", Path: "tokenizer.json"},
	}
}

// onnxProfiles are the ONNX sentence models megagit knows. all-MiniLM-L6-v2
// and all-mpnet-base-v2 were measured with `megagit eval` on real skills
// (their fusion weight, floor and tier; all-MiniLM-L6-v2's abstention gate
// is in route/gates); the others' floors and tiers come from another
// skill-routing benchmark (ranker's model profiles hold the same floors) or
// are guessed from the model's family, and their notes say so. Dimensions,
// pooling and prefixes are the model cards'.
var onnxProfiles = []Profile{
	{ID: "all-minilm-l6-v2", Kind: "onnx", HubID: "sentence-transformers/all-MiniLM-L6-v2", Aliases: []string{"all-MiniLM-L6-v2", "minilm"},
		Dim: 384, Pooling: "mean", Normalize: true, Inputs: bertInputs,
		FusionW: 0.5, AbsFloor: 0.25, Tier: "weak", Measured: true,
		Note: "measured by megagit on real skills (fusion weight, cosine floor, K tier and an abstention gate of its own); " +
			"its float32 and int8 ONNX files route alike",
		Revision: "main", Files: []ModelFile{
			{Name: "model.onnx", Path: "onnx/model.onnx", ByReference: true},
			{Name: "tokenizer.json", Path: "tokenizer.json", SHA256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037", Size: 466247},
		},
		Reference: &miniLMReference},
	{ID: "all-mpnet-base-v2", Kind: "onnx", HubID: "sentence-transformers/all-mpnet-base-v2", Aliases: []string{"all-mpnet", "mpnet"},
		Dim: 768, Pooling: "mean", Normalize: true, Inputs: robertaInputs,
		FusionW: 0.6, AbsFloor: 0.30, Tier: "weak", Measured: true,
		Note: "measured by megagit on real skills (fusion weight, cosine floor, K tier), but no abstention gate is shipped for it: " +
			"it abstains by the fixed floors, which let more prompts that need no skill through than all-minilm-l6-v2's gate does; " +
			"it ranks paraphrases best of the measured models at 436 MB and about 60 ms a prompt",
		Revision: "main", Files: []ModelFile{
			{Name: "model.onnx", Path: "onnx/model.onnx", ByReference: true},
			{Name: "tokenizer.json", Path: "tokenizer.json", ByReference: true},
		},
		Reference: &mpnetReference},
	{ID: "bge-m3", Kind: "onnx", HubID: "BAAI/bge-m3", Aliases: []string{"BGE-M3"},
		Dim: 1024, Pooling: "cls", Normalize: true, Inputs: robertaInputs,
		FusionW: onnxFusionW, AbsFloor: 0.60, Tier: "strong",
		Note: "XLM-RoBERTa tokenizer (Unigram) and a >2 GB export with external data: use --dir; " + notMeasured},
	{ID: "skillret-0.6b", Kind: "onnx", Aliases: []string{"SkillRet-0.6B", "SkillRet"},
		Dim: 1024, Pooling: "last", Normalize: true, Inputs: []string{"input_ids", "attention_mask", "position_ids"},
		FusionW: onnxFusionW, AbsFloor: 0.40, Tier: "strong",
		Note: "hub id and query instruction unknown here: use --dir with your export; " + notMeasured},
	{ID: "qwen3-embedding-0.6b", Kind: "onnx", HubID: "Qwen/Qwen3-Embedding-0.6B", Aliases: []string{"Qwen3-0.6B"},
		Dim: 1024, Pooling: "last", Normalize: true, Inputs: []string{"input_ids", "attention_mask", "position_ids"},
		QueryPrefix: "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:",
		FusionW:     onnxFusionW, AbsFloor: 0.35, Tier: "strong",
		Note: "decoder model, byte-level BPE tokenizer; exports without KV-cache inputs only: use --dir; " + notMeasured},
	{ID: "bge-small-en-v1.5", Kind: "onnx", HubID: "BAAI/bge-small-en-v1.5", Aliases: []string{"BGE-small-v1.5", "bge-small"},
		Dim: 384, Pooling: "cls", QueryPrefix: bgeQueryPrefix, Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.70, Tier: "weak",
		Revision: "main", Files: hfFiles(), Note: notMeasured},
	{ID: "bge-large-en-v1.5", Kind: "onnx", HubID: "BAAI/bge-large-en-v1.5", Aliases: []string{"BGE-large-v1.5", "bge-large"},
		Dim: 1024, Pooling: "cls", QueryPrefix: bgeQueryPrefix, Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.65, Tier: "medium", Note: guessed},
	{ID: "e5-small-v2", Kind: "onnx", HubID: "intfloat/e5-small-v2", Aliases: []string{"e5-small"},
		Dim: 384, Pooling: "mean", QueryPrefix: "query: ", DocPrefix: "passage: ", Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.40, Tier: "weak", Note: guessed},
	{ID: "e5-base-v2", Kind: "onnx", HubID: "intfloat/e5-base-v2", Aliases: []string{"e5-base"},
		Dim: 768, Pooling: "mean", QueryPrefix: "query: ", DocPrefix: "passage: ", Normalize: true, Inputs: bertInputs,
		FusionW: onnxFusionW, AbsFloor: 0.45, Tier: "medium", Note: guessed},
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
