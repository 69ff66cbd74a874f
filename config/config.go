// Package config merges .megagit/config.yaml, the user's own files, the
// environment and command-line flags into one typed Config. It is the only
// package that imports viper, so every other package sees plain values and
// the precedence rules live here: defaults < the registry's committed file
// < the user config's machine settings < the registry's
// .megagit/local/config.yaml < env (MEGAGIT_*, and MEGA_EVAL_* for the
// blend weights, the names other tools of its kind read) < flags. A
// committed file may not set a machine setting (trust.go).
//
// Config's struct tags are the one list of settings (fields.go reads them
// once): the key (mapstructure), its default, the older environment names
// besides MEGAGIT_<KEY> (env), the flag that overrides it (flag), the check
// its value must pass (check), scope:"machine" for a setting that names a
// library, program or model folder of this machine (trust.go) and the help
// `megagit config` prints.
package config

import (
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/ranker"
)

// Config is every setting megagit reads, resolved: each field that is not
// a group of settings is one, and its tags say all about it.
type Config struct {
	Roots    []string `mapstructure:"roots" default:"skills,.claude/skills" check:"relpaths" help:"folders (relative to the registry) holding <name>/SKILL.md"`
	Blend    Blend    `mapstructure:"blend"`
	Route    Route    `mapstructure:"route"`
	Lexical  Lexical  `mapstructure:"lexical"`
	DynamicK DynamicK `mapstructure:"dynamic_k"`
	Hook     Hook     `mapstructure:"hook"`
	Lock     Lock     `mapstructure:"lock"`
	Network  Network  `mapstructure:"network"`
	Audit    Audit    `mapstructure:"audit"`
	Serve    Serve    `mapstructure:"serve"`
	Model    Model    `mapstructure:"model"`
	Sources  Sources  `mapstructure:"sources"`
	Lint     Lint     `mapstructure:"lint"`
	// Deny and Force name skills (by name or glob, as path.Match reads
	// one) that are never injected, and those injected whenever a prompt
	// matches them at all (docs/manage-skills.md, "Turn a skill off").
	// Ignored are the settings the registry's committed file sets but may
	// not (a machine setting, or a gate file outside the registry): each
	// is left at the value below it, and said (Ignored.Error).
	Ignored []Ignored `mapstructure:"-"`
	Deny    []string  `mapstructure:"deny" default:"" check:"globs" help:"skills never injected (hook, route, serve, MCP search), by name or glob such as db-*; still listed"`
	Force   []string  `mapstructure:"force" default:"" check:"globs" help:"skills injected whenever the prompt matches them at all (a shared word, or the model's cosine at its floor), even when the gate or K would leave them out; within route.top_k and route.budget"`
}

// Sources says which skill folders besides the registry's own roots are
// read: the agents' native folders (per agent, at project and user level)
// and the team registry named in the user config.
type Sources struct {
	Claude bool `mapstructure:"claude" default:"true" help:"read Claude Code's skill folders: <project>/.claude/skills and ~/.claude/skills"`
	Codex  bool `mapstructure:"codex" default:"true" help:"read Codex's skill folders: <project>/.agents/skills, ~/.agents/skills and ~/.codex/skills"`
	Gemini bool `mapstructure:"gemini" default:"true" help:"read Gemini CLI's skill folders: <project>/.gemini/skills and ~/.gemini/skills"`
	// Opencode and Copilot read the folders only they read (they read
	// .claude/skills and .agents/skills too, which claude and codex cover).
	Opencode bool `mapstructure:"opencode" default:"true" help:"read opencode's skill folders: <project>/.opencode/skills (and skill) and ~/.config/opencode/skills (and skill)"`
	Copilot  bool `mapstructure:"copilot" default:"true" help:"read GitHub Copilot CLI's skill folders: <project>/.github/skills and ~/.copilot/skills"`
	// Plugins reads the skills of Claude Code's installed, enabled plugins.
	Plugins bool `mapstructure:"plugins" default:"true" help:"read the skills of Claude Code's installed and enabled plugins (~/.claude/plugins/installed_plugins.json), named plugin:skill"`
	// User reads the user-level native folders (~/.claude/skills, ...).
	User bool `mapstructure:"user" default:"true" help:"read the user-level native skill folders (~/.claude/skills, ...); false keeps to the project's"`
	// Team reads the team registry of the user config (User.TeamRegistry).
	Team bool `mapstructure:"team" default:"true" help:"read the team registry named by team_registry in the user config (${XDG_CONFIG_HOME:-~/.config}/megagit/config.yaml)"`
}

// Lint holds what `megagit lint` and doctor report.
type Lint struct {
	// DupCosine overrides the model's measured duplicate cosine
	// (models.Profile.DupCosine) for lint and doctor when > 0.
	DupCosine float64 `mapstructure:"duplicate_cosine" default:"0" check:"fraction" help:"two skills whose name and description the model finds this alike (cosine) are reported as saying the same thing; 0 uses the model's measured value (0.80 for the built-in model)"`
}

// Model picks the semantic channel.
type Model struct {
	// ID is a model id (the built-in "megagit-static-v3", an ONNX profile) or "none".
	ID string `mapstructure:"id" default:"megagit-static-v3" help:"semantic model: megagit-static-v3 (built in), an ONNX profile id, or none"`
	// Dir is a local model folder (static or ONNX) that overrides ID as
	// the model to load; ID, when it names an ONNX profile, is then the
	// folder's profile (`model use --dir DIR --profile ID`).
	Dir string `mapstructure:"dir" default:"" scope:"machine" help:"a local model folder, static (model.json) or ONNX (model.onnx + tokenizer.json); it overrides model.id, which then names an ONNX folder's profile"`
	// FusionW overrides the model profile's fusion weight when > 0.
	FusionW float64 `mapstructure:"fusion_w" default:"0" help:"weight of the semantic channel in relevance; 0 uses the model's profile"`
	// AbsFloor overrides the model profile's cosine floor when > 0.
	AbsFloor float64 `mapstructure:"abs_floor" default:"0" help:"semantic channel's cosine floor; 0 uses the model's profile"`
	// ONNXRuntime is the ONNX Runtime shared library ONNX models load; empty
	// means the install script's folder (models.RuntimePath resolves it).
	ONNXRuntime string `mapstructure:"onnxruntime" default:"" env:"MEGAGIT_ONNXRUNTIME_LIB" scope:"machine" help:"ONNX Runtime library for ONNX models; empty: ${XDG_DATA_HOME:-~/.local/share}/megagit/onnxruntime/libonnxruntime.so.1, where scripts/install-onnxruntime.sh puts it"`
	// CacheFloat16 makes `megagit embed` commit float16 vectors (half the
	// size); --float16 on the command line (embed's alone) overrides it.
	CacheFloat16 bool `mapstructure:"cache_float16" default:"false" flag:"float16" help:"megagit embed commits float16 vectors (half the size) instead of float32"`
}

// Blend holds the evidence-blend weights: how far past verdicts move a
// skill from its relevance.
type Blend struct {
	Enabled  bool    `mapstructure:"enabled" default:"true" env:"MEGA_EVAL_BLEND" help:"false ranks by pure relevance"`
	CountW   float64 `mapstructure:"count_w" default:"0.10" env:"MEGA_EVAL_COUNT_W" help:"weight of the Beta-smoothed helpful-rate bonus"`
	ContextW float64 `mapstructure:"context_w" default:"0.15" env:"MEGA_EVAL_CONTEXT_W" help:"weight of helpful-minus-harmful context match"`
	HarmW    float64 `mapstructure:"harm_w" default:"1.5" env:"MEGA_EVAL_HARM_W" help:"asymmetry multiplier on harmful context match"`
	RelatedW float64 `mapstructure:"related_w" default:"0.10" env:"MEGA_EVAL_RELATED_W" help:"weight of the related past-verdict signal"`
	LearntW  float64 `mapstructure:"learnt_w" default:"0.5" check:"fraction" env:"MEGA_EVAL_LEARNT_W" help:"what a prompt learnt from the agents' history (megagit learn history) weighs next to an explicit HELPFUL verdict's context"`
	HalfLife float64 `mapstructure:"half_life_days" default:"30" check:"min=0" help:"days after which a skill's learnt evidence (verdicts, past prompts, the silence penalty) pulls half as hard, counted from its last change; 0: it never fades"`
}

// Route holds the per-prompt output choices.
type Route struct {
	TopK    int     `mapstructure:"top_k" default:"5" flag:"top-k" check:"min=1" help:"most skills one prompt injects"`
	Dynamic bool    `mapstructure:"dynamic_k" default:"true" help:"false always emits route.top_k skills"`
	Format  string  `mapstructure:"format" default:"catalog" flag:"format" check:"oneof=catalog|compose" help:"catalog | compose"`
	Budget  int     `mapstructure:"budget" default:"800" flag:"budget" check:"min=0" help:"most tokens one prompt injects (4 bytes a token); the skills that do not fit are left out"`
	MMR     float64 `mapstructure:"mmr_lambda" default:"0.7" check:"fraction" help:"MMR relevance/diversity trade-off"`
}

// Lexical holds the BM25F channel's parameters; zero values mean the ranker's defaults.
type Lexical struct {
	K1           float64 `mapstructure:"k1" default:"0" help:"BM25F term saturation; 0 uses the ranker default"`
	B            float64 `mapstructure:"b" default:"0" help:"BM25F length normalisation; 0 uses the ranker default"`
	WName        float64 `mapstructure:"w_name" default:"0" help:"field weight of the skill name; 0 uses the default"`
	WDescription float64 `mapstructure:"w_description" default:"0" help:"field weight of the description; 0 uses the default"`
	WHeadings    float64 `mapstructure:"w_headings" default:"0" help:"field weight of body headings; 0 uses the default"`
	WTriggers    float64 `mapstructure:"w_triggers" default:"0" help:"field weight of trigger lines; 0 uses the default"`
	WCtx         float64 `mapstructure:"w_contexts" default:"0" help:"field weight of helpful contexts; 0 uses the default"`
	// WBody below 0 leaves the body out of the lexical index.
	WBody      float64 `mapstructure:"w_body" default:"0" help:"field weight of the skill's body (its most frequent terms); 0 uses the default, below 0 leaves the body out"`
	FastMin    float64 `mapstructure:"fast_min" default:"0" help:"dominant-winner fast path: minimum BM25 score of the leader; 0 = off"`
	FastMargin float64 `mapstructure:"fast_margin" default:"0" help:"dominant-winner fast path: BM25 margin the leader needs over the runner-up to be emitted alone"`
}

// DynamicK overrides the profile's dynamic-K settings; a negative or zero
// value means "use the profile's".
type DynamicK struct {
	Tier     string  `mapstructure:"tier" default:"" check:"oneof=|strong|medium|weak" help:"strong|medium|weak; empty uses the profile's"`
	AbsFloor float64 `mapstructure:"abs_floor" default:"0" help:"hard relevance floor; 0 uses the profile's"`
	// Dynamic K's abstain and widen thresholds, re-fitted by `megagit tune
	// --apply`; 0 = the profile's.
	AbstainZTop1  float64 `mapstructure:"abstain_z_top1" default:"0" help:"abstain when z_top1 is below this (and z_ent high); 0 uses the profile's"`
	AbstainZEnt   float64 `mapstructure:"abstain_z_ent" default:"0" help:"abstain when z_ent is above this (and z_top1 low); 0 uses the profile's"`
	AmbigZEnt     float64 `mapstructure:"ambig_z_ent" default:"0" help:"z_ent above which K widens to the ambiguous K; 0 uses the profile's"`
	VeryAmbigZEnt float64 `mapstructure:"very_ambig_z_ent" default:"0" help:"z_ent above which K widens to the very-ambiguous K; 0 uses the profile's"`
	// Gate is dynamic_k.gate: "auto" (the shipped abstention gate of the
	// model, or of lexical routing), "off" (the profiles' floors) or a gate
	// file written by `megagit eval --fit`; Fitted is that file, read.
	Gate   string       `mapstructure:"gate" default:"auto" help:"abstention gate: auto (the one megagit ships for the model), off (fixed floors), or a gate file from megagit eval --fit (relative to the registry root)"`
	Fitted *ranker.Gate `mapstructure:"-"`
}

// Hook holds agent-hook behaviour.
type Hook struct {
	Deadline time.Duration `mapstructure:"deadline_ms" default:"500" check:"positive" help:"hard deadline of a prompt hook call"`
	Shadow   bool          `mapstructure:"shadow" default:"false" help:"decide and log, inject nothing"`
	// Output is "text" (plain stdout) or "json" (hookSpecificOutput) for
	// Claude Code; Codex and Gemini always get JSON.
	Output string `mapstructure:"output" default:"text" check:"oneof=text|json" help:"Claude Code output: text (plain stdout) or json (hookSpecificOutput.additionalContext)"`
	// LogPrompts keeps raw prompts in the local decision log.
	LogPrompts bool `mapstructure:"log_prompts" default:"false" help:"keep raw prompts in the local decision log (default: hash and top terms)"`
	// Refresh is how the prompt hook brings a stale compiled index up to
	// date: "background" (a detached megagit index), "wait" (the same, but
	// the hook exits only once it is done) or "off".
	Refresh string `mapstructure:"refresh" default:"background" check:"oneof=background|wait|off" help:"after answering from a compiled route index that may be out of date, the prompt hook refreshes it: background, wait (exit once done) or off"`
	// Serve is whether the prompt hook starts the registry's `megagit
	// serve` itself when the model needs one (an ONNX model, which cannot
	// be loaded per prompt): "auto" or "off".
	Serve string `mapstructure:"serve" default:"auto" check:"oneof=auto|off" help:"auto: the prompt hook starts megagit serve by itself when the model needs it (an ONNX model) and none answers; off: never"`
}

// Serve holds how a `megagit serve` the prompt hook started behaves.
type Serve struct {
	// Idle is how long a server the hook started waits for a request
	// before it stops; a `megagit serve` run by hand takes --idle instead.
	Idle time.Duration `mapstructure:"idle_ms" default:"1800000" check:"min=0" help:"a megagit serve the prompt hook started stops after this long without a request (0: never); megagit serve run by hand takes --idle"`
}

// Lock holds how long a writer waits for the registry lock.
type Lock struct {
	Timeout time.Duration `mapstructure:"timeout_ms" default:"30000" help:"how long a writer waits for the registry lock"`
}

// Audit is what the audit lets through to the agent. A skill with a high
// audit finding, or an installed skill whose files differ from
// .megagit/skills.lock, is held back (never injected, never offered
// through MCP) until an allow names it.
type Audit struct {
	Allow Pairs `mapstructure:"allow" default:"" check:"allows" scope:"machine" help:"skills the audit may not hold back, as SKILL:RULE (SKILL a name or glob, RULE an audit rule, lock-drift for an installed skill edited since it was locked, or * for every rule): e.g. deploy-*:download-exec; only your own config or the environment may set it"`
}

// Network holds how long megagit waits on a git remote.
type Network struct {
	// Timeout bounds connecting to a remote and then each silence of it
	// (no byte either way), in fetch, push, list and clone.
	Timeout time.Duration `mapstructure:"timeout_ms" default:"60000" check:"positive" help:"how long a git remote may take to connect, or stay silent (no byte either way) while megagit fetches, pushes or clones, before megagit gives up naming it"`
}

// Setting is one resolved key, for `megagit config`.
type Setting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
	Help   string `json:"help"`
}

// ErrInvalid marks every configuration error: a member of the
// errkind.ErrInvalid family that prints as "config", so a message reads
// "config: FILE: field ...".
var ErrInvalid = errkind.Invalid("config")

// FileName is where a registry keeps its committed settings.
const FileName = "config.yaml"
