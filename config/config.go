// Package config merges .megagit/config.yaml, the environment and command-line
// flags into one typed Config. It is the only package that imports viper, so
// every other package sees plain values and the precedence rules live here:
// defaults < file < env (MEGAGIT_*, and seed 000's MEGA_EVAL_* weights) < flags.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/spf13/cast"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Config is every setting megagit reads, resolved.
type Config struct {
	Roots    []string
	Blend    Blend
	Route    Route
	Lexical  Lexical
	DynamicK DynamicK
	Hook     Hook
	Lock     Lock
	Model    Model
	Sources  Sources
}

// Sources says which skill folders besides the registry's own roots are
// read: the agents' native folders (per agent, at project and user level)
// and the team registry named in the user config.
type Sources struct {
	Claude, Codex, Gemini bool
	// User reads the user-level native folders (~/.claude/skills, ...).
	User bool
	// Team reads the team registry of the user config (User.TeamRegistry).
	Team bool
}

// Model picks the semantic channel.
type Model struct {
	// ID is a model id (a built-in "megagit-static-v3", "-v2" or "-v1", an ONNX profile) or "none".
	ID string
	// Dir is a local model folder (static or ONNX) that overrides ID as
	// the model to load; ID, when it names an ONNX profile, is then the
	// folder's profile (`model use --dir DIR --profile ID`).
	Dir string
	// FusionW overrides the model profile's fusion weight when > 0.
	FusionW float64
	// AbsFloor overrides the model profile's cosine floor when > 0.
	AbsFloor float64
	// ONNXRuntime is the ONNX Runtime shared library ONNX models load; empty
	// means the install script's folder (models.RuntimePath resolves it).
	ONNXRuntime string
	// CacheFloat16 makes `megagit embed` commit float16 vectors (half the
	// size); --float16 on the command line overrides it.
	CacheFloat16 bool
}

// Blend holds seed 000's evidence-blend weights.
type Blend struct {
	Enabled                           bool
	CountW, ContextW, HarmW, RelatedW float64
}

// Route holds the per-prompt output choices.
type Route struct {
	TopK    int
	Dynamic bool
	Format  string
	Budget  int
	MMR     float64
}

// Lexical holds the BM25F channel's parameters; zero values mean the ranker's defaults.
type Lexical struct {
	K1, B                                           float64
	WName, WDescription, WHeadings, WTriggers, WCtx float64
	// WBody below 0 leaves the body out of the lexical index.
	WBody               float64
	FastMin, FastMargin float64
}

// DynamicK overrides the profile's dynamic-K settings; a negative or zero
// value means "use the profile's".
type DynamicK struct {
	Tier     string
	AbsFloor float64
	// Seed 000 gates, re-fitted by `megagit tune --apply`; 0 = the profile's.
	AbstainZTop1, AbstainZEnt, AmbigZEnt, VeryAmbigZEnt float64
	// Gate is dynamic_k.gate: "auto" (the shipped abstention gate of the
	// model, or of lexical routing), "off" (the profiles' floors) or a gate
	// file written by `megagit eval --fit`; Fitted is that file, read.
	Gate   string
	Fitted *ranker.Gate
}

// Hook holds agent-hook behaviour.
type Hook struct {
	Deadline time.Duration
	Shadow   bool
	// Output is "text" (plain stdout) or "json" (hookSpecificOutput) for
	// Claude Code; Codex and Gemini always get JSON.
	Output string
	// LogPrompts keeps raw prompts in the local decision log.
	LogPrompts bool
	// Refresh is how the prompt hook brings a stale compiled index up to
	// date: "background" (a detached megagit index), "wait" (the same, but
	// the hook exits only once it is done) or "off".
	Refresh string
}

// Lock holds how long a writer waits for the registry lock.
type Lock struct {
	Timeout time.Duration
}

// Setting is one resolved key, for `megagit config`.
type Setting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	Source string `json:"source"`
	Help   string `json:"help"`
}

type kind int

const (
	kFloat kind = iota
	kInt
	kBool
	kString
	kStrings
)

type spec struct {
	key  string
	kind kind
	def  any
	env  []string // extra env names besides MEGAGIT_<KEY>
	help string
}

// specs is the whole settings table; keep it sorted by key.
var specs = []spec{
	{"blend.context_w", kFloat, 0.15, []string{"MEGA_EVAL_CONTEXT_W"}, "weight of helpful-minus-harmful context match"},
	{"blend.count_w", kFloat, 0.10, []string{"MEGA_EVAL_COUNT_W"}, "weight of the Beta-smoothed helpful-rate bonus"},
	{"blend.enabled", kBool, true, []string{"MEGA_EVAL_BLEND"}, "false ranks by pure relevance"},
	{"blend.harm_w", kFloat, 1.5, []string{"MEGA_EVAL_HARM_W"}, "asymmetry multiplier on harmful context match"},
	{"blend.related_w", kFloat, 0.10, []string{"MEGA_EVAL_RELATED_W"}, "weight of the related past-verdict signal"},
	{"dynamic_k.abs_floor", kFloat, 0.0, nil, "hard relevance floor; 0 uses the profile's"},
	{"dynamic_k.abstain_z_ent", kFloat, 0.0, nil, "abstain when z_ent is above this (and z_top1 low); 0 uses the profile's"},
	{"dynamic_k.abstain_z_top1", kFloat, 0.0, nil, "abstain when z_top1 is below this (and z_ent high); 0 uses the profile's"},
	{"dynamic_k.ambig_z_ent", kFloat, 0.0, nil, "z_ent above which K widens to the ambiguous K; 0 uses the profile's"},
	{"dynamic_k.gate", kString, "auto", nil, "abstention gate: auto (the one megagit ships for the model), off (fixed floors), or a gate file from megagit eval --fit (relative to the registry root)"},
	{"dynamic_k.tier", kString, "", nil, "strong|medium|weak; empty uses the profile's"},
	{"dynamic_k.very_ambig_z_ent", kFloat, 0.0, nil, "z_ent above which K widens to the very-ambiguous K; 0 uses the profile's"},
	{"hook.deadline_ms", kInt, 500, nil, "hard deadline of a prompt hook call"},
	{"hook.log_prompts", kBool, false, nil, "keep raw prompts in the local decision log (default: hash and top terms)"},
	{"hook.output", kString, "text", nil, "Claude Code output: text (plain stdout) or json (hookSpecificOutput.additionalContext)"},
	{"hook.refresh", kString, "background", nil, "after answering from a compiled route index that may be out of date, the prompt hook refreshes it: background, wait (exit once done) or off"},
	{"hook.shadow", kBool, false, nil, "decide and log, inject nothing"},
	{"lexical.b", kFloat, 0.0, nil, "BM25F length normalisation; 0 uses the ranker default"},
	{"lexical.fast_margin", kFloat, 0.0, nil, "dominant-winner fast path: BM25 margin the leader needs over the runner-up to be emitted alone"},
	{"lexical.fast_min", kFloat, 0.0, nil, "dominant-winner fast path: minimum BM25 score of the leader; 0 = off"},
	{"lexical.k1", kFloat, 0.0, nil, "BM25F term saturation; 0 uses the ranker default"},
	{"lexical.w_body", kFloat, 0.0, nil, "field weight of the skill's body (its most frequent terms); 0 uses the default, below 0 leaves the body out"},
	{"lexical.w_contexts", kFloat, 0.0, nil, "field weight of helpful contexts; 0 uses the default"},
	{"lexical.w_description", kFloat, 0.0, nil, "field weight of the description; 0 uses the default"},
	{"lexical.w_headings", kFloat, 0.0, nil, "field weight of body headings; 0 uses the default"},
	{"lexical.w_name", kFloat, 0.0, nil, "field weight of the skill name; 0 uses the default"},
	{"lexical.w_triggers", kFloat, 0.0, nil, "field weight of trigger lines; 0 uses the default"},
	{"lock.timeout_ms", kInt, 30000, nil, "how long a writer waits for the registry lock"},
	{"model.abs_floor", kFloat, 0.0, nil, "semantic channel's cosine floor; 0 uses the model's profile"},
	{"model.cache_float16", kBool, false, nil, "megagit embed commits float16 vectors (half the size) instead of float32"},
	{"model.dir", kString, "", nil, "a local model folder, static (model.json) or ONNX (model.onnx + tokenizer.json); it overrides model.id, which then names an ONNX folder's profile"},
	{"model.fusion_w", kFloat, 0.0, nil, "weight of the semantic channel in relevance; 0 uses the model's profile"},
	{"model.id", kString, "megagit-static-v3", nil, "semantic model: megagit-static-v3, -v2 or -v1 (built in), an ONNX profile id, or none"},
	{"model.onnxruntime", kString, "", []string{"MEGAGIT_ONNXRUNTIME_LIB"}, "ONNX Runtime library for ONNX models; empty: ${XDG_DATA_HOME:-~/.local/share}/megagit/onnxruntime/libonnxruntime.so.1, where scripts/install-onnxruntime.sh puts it"},
	{"roots", kStrings, []string{"skills", ".claude/skills"}, nil, "folders (relative to the registry) holding <name>/SKILL.md"},
	{"route.budget", kInt, 2000, nil, "token budget of the injected text"},
	{"route.dynamic_k", kBool, true, nil, "false always emits route.top_k skills"},
	{"route.format", kString, "catalog", nil, "catalog | compose"},
	{"route.mmr_lambda", kFloat, 0.7, nil, "MMR relevance/diversity trade-off"},
	{"route.top_k", kInt, 10, nil, "cap on emitted skills"},
	{"sources.claude", kBool, true, nil, "read Claude Code's skill folders: <project>/.claude/skills and ~/.claude/skills"},
	{"sources.codex", kBool, true, nil, "read Codex's skill folders: <project>/.agents/skills, ~/.agents/skills and ~/.codex/skills"},
	{"sources.gemini", kBool, true, nil, "read Gemini CLI's skill folders: <project>/.gemini/skills and ~/.gemini/skills"},
	{"sources.team", kBool, true, nil, "read the team registry named by team_registry in the user config (${XDG_CONFIG_HOME:-~/.config}/megagit/config.yaml)"},
	{"sources.user", kBool, true, nil, "read the user-level native skill folders (~/.claude/skills, ...); false keeps to the project's"},
}

// ErrInvalid marks every configuration error, so callers can map it to the
// invalid-input exit code.
var ErrInvalid = errors.New("config")

// FileName is where a registry keeps its committed settings.
const FileName = "config.yaml"

// Load resolves the settings. file may not exist; flags may be nil. A changed
// flag listed in flagNames (e.g. --top-k for route.top_k) overrides
// everything else.
func Load(file string, flags *pflag.FlagSet) (*Config, []Setting, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if file != "" {
		data, err := readConfigFile(file)
		switch {
		case err == nil:
			if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
				return nil, nil, fmt.Errorf("%w %s: %v", ErrInvalid, file, err)
			}
		case errors.Is(err, os.ErrNotExist):
		default:
			return nil, nil, fmt.Errorf("config: %w", err)
		}
	}
	known := map[string]bool{}
	for _, s := range specs {
		known[s.key] = true
	}
	if err := refuseUnknown(v, known, file); err != nil {
		return nil, nil, err
	}

	vals := map[string]any{}
	var out []Setting
	for _, s := range specs {
		raw, source := s.def, "default"
		if v.InConfig(s.key) {
			raw, source = v.Get(s.key), "file "+file
		}
		for _, name := range append([]string{envName(s.key)}, s.env...) {
			if val, ok := os.LookupEnv(name); ok {
				raw, source = val, "env "+name
				break
			}
		}
		if flags != nil {
			if name, ok := flagNames[s.key]; !ok {
			} else if f := flags.Lookup(name); f != nil && f.Changed {
				raw, source = f.Value.String(), "flag --"+f.Name
			}
		}
		val, err := convert(s.kind, raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: field %s (from %s): %v", ErrInvalid, s.key, source, err)
		}
		vals[s.key] = val
		out = append(out, Setting{Key: s.key, Value: val, Source: source, Help: s.help})
	}
	c := build(vals)
	if err := c.validate(); err != nil {
		return nil, nil, err
	}
	if err := c.readGate(file); err != nil {
		return nil, nil, err
	}
	return c, out, nil
}

// readGate reads dynamic_k.gate's file, if it names one: relative to the
// registry root (the folder above the config file's .megagit), or to the
// working directory without a config file.
func (c *Config) readGate(file string) error {
	switch c.DynamicK.Gate {
	case "", "auto", "off": // empty (an unset variable) is auto
		return nil
	}
	path := c.DynamicK.Gate
	if !filepath.IsAbs(path) && file != "" {
		path = filepath.Join(filepath.Dir(filepath.Dir(file)), path)
	}
	var data []byte
	var err error
	if root := filepath.Dir(filepath.Dir(file)); !filepath.IsAbs(c.DynamicK.Gate) && file != "" {
		data, err = readInside(root, filepath.ToSlash(c.DynamicK.Gate))
	} else {
		data, err = local.ReadRegular(path, local.MaxConfig)
	}
	if err != nil {
		return fmt.Errorf("%w: field dynamic_k.gate: %v", ErrInvalid, err)
	}
	g, err := ranker.ParseGate(data)
	if err != nil {
		return fmt.Errorf("%w: field dynamic_k.gate: %s: %v", ErrInvalid, path, err)
	}
	c.DynamicK.Fitted = g
	return nil
}

// readConfigFile reads a config file, bounded; a registry's
// (.megagit/config.yaml) under the registry's symlink policy: a symlink out
// of the registry is refused before anything is read, so nothing of its
// target ever shows in an error.
func readConfigFile(file string) ([]byte, error) {
	dir := filepath.Dir(file)
	if filepath.Base(dir) != local.MetaDir {
		return local.ReadRegular(file, local.MaxConfig)
	}
	return readInside(filepath.Dir(dir), local.MetaDir+"/"+filepath.Base(file))
}

// readInside reads rel from the registry at root (ReadInside, with the
// config cap).
func readInside(root, rel string) ([]byte, error) {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return local.ReadInside(root, rel, local.MaxConfig)
}

// EnvName is the MEGAGIT_* variable for a key, e.g. MEGAGIT_ROUTE_TOP_K.
func envName(key string) string {
	return "MEGAGIT_" + strings.ToUpper(strings.NewReplacer(".", "_").Replace(key))
}

// flagNames are the settings a command-line flag may override, and the flag
// that does it; only these, so a flag of the same name meant for something
// else (the global --dir) can never leak into a setting.
var flagNames = map[string]string{
	"route.top_k":  "top-k",
	"route.format": "format",
	"route.budget": "budget",
	// embed's --float16, the only command with that flag.
	"model.cache_float16": "float16",
}

func convert(k kind, raw any) (any, error) {
	switch k {
	case kFloat:
		return cast.ToFloat64E(raw)
	case kInt:
		return cast.ToIntE(raw)
	case kBool:
		return cast.ToBoolE(raw)
	case kString:
		return cast.ToStringE(raw)
	case kStrings:
		if s, ok := raw.(string); ok {
			return splitList(s), nil
		}
		return cast.ToStringSliceE(raw)
	}
	return nil, fmt.Errorf("unknown kind")
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func build(v map[string]any) *Config {
	f := func(k string) float64 { return v[k].(float64) }
	i := func(k string) int { return v[k].(int) }
	b := func(k string) bool { return v[k].(bool) }
	s := func(k string) string { return v[k].(string) }
	return &Config{
		Roots: v["roots"].([]string),
		Blend: Blend{Enabled: b("blend.enabled"), CountW: f("blend.count_w"), ContextW: f("blend.context_w"),
			HarmW: f("blend.harm_w"), RelatedW: f("blend.related_w")},
		Route: Route{TopK: i("route.top_k"), Dynamic: b("route.dynamic_k"), Format: s("route.format"),
			Budget: i("route.budget"), MMR: f("route.mmr_lambda")},
		Lexical: Lexical{K1: f("lexical.k1"), B: f("lexical.b"), WName: f("lexical.w_name"),
			WDescription: f("lexical.w_description"), WHeadings: f("lexical.w_headings"),
			WTriggers: f("lexical.w_triggers"), WCtx: f("lexical.w_contexts"), WBody: f("lexical.w_body"),
			FastMin: f("lexical.fast_min"), FastMargin: f("lexical.fast_margin")},
		DynamicK: DynamicK{Tier: s("dynamic_k.tier"), AbsFloor: f("dynamic_k.abs_floor"),
			AbstainZTop1: f("dynamic_k.abstain_z_top1"), AbstainZEnt: f("dynamic_k.abstain_z_ent"),
			AmbigZEnt: f("dynamic_k.ambig_z_ent"), VeryAmbigZEnt: f("dynamic_k.very_ambig_z_ent"),
			Gate: s("dynamic_k.gate")},
		Hook: Hook{Deadline: time.Duration(i("hook.deadline_ms")) * time.Millisecond, Shadow: b("hook.shadow"),
			Output: s("hook.output"), LogPrompts: b("hook.log_prompts"), Refresh: s("hook.refresh")},
		Lock: Lock{Timeout: time.Duration(i("lock.timeout_ms")) * time.Millisecond},
		Model: Model{ID: s("model.id"), Dir: s("model.dir"), FusionW: f("model.fusion_w"), AbsFloor: f("model.abs_floor"),
			ONNXRuntime: s("model.onnxruntime"), CacheFloat16: b("model.cache_float16")},
		Sources: Sources{Claude: b("sources.claude"), Codex: b("sources.codex"), Gemini: b("sources.gemini"),
			User: b("sources.user"), Team: b("sources.team")},
	}
}

func (c *Config) validate() error {
	bad := func(key, msg string) error { return fmt.Errorf("%w: field %s: %s", ErrInvalid, key, msg) }
	if c.Route.Format != "catalog" && c.Route.Format != "compose" {
		return bad("route.format", fmt.Sprintf("%q is not catalog or compose", c.Route.Format))
	}
	if c.Hook.Output != "text" && c.Hook.Output != "json" {
		return bad("hook.output", fmt.Sprintf("%q is not text or json", c.Hook.Output))
	}
	switch c.Hook.Refresh {
	case "background", "wait", "off":
	default:
		return bad("hook.refresh", fmt.Sprintf("%q is not background, wait or off", c.Hook.Refresh))
	}
	if c.Hook.Deadline <= 0 {
		return bad("hook.deadline_ms", "must be positive")
	}
	switch c.DynamicK.Tier {
	case "", "strong", "medium", "weak":
	default:
		return bad("dynamic_k.tier", fmt.Sprintf("%q is not strong, medium or weak", c.DynamicK.Tier))
	}
	if c.Route.TopK < 1 {
		return bad("route.top_k", "must be at least 1")
	}
	if c.Route.Budget < 0 {
		return bad("route.budget", "must not be negative")
	}
	if c.Route.MMR < 0 || c.Route.MMR > 1 {
		return bad("route.mmr_lambda", "must be within [0, 1]")
	}
	if len(c.Roots) == 0 {
		return bad("roots", "needs at least one folder")
	}
	for _, r := range c.Roots {
		if strings.HasPrefix(r, "/") || strings.Contains("/"+r+"/", "/../") {
			return bad("roots", fmt.Sprintf("%q must be a relative path inside the registry", r))
		}
	}
	return nil
}

// DefaultFile is the commented config.yaml that `megagit init` writes.
func DefaultFile() []byte { return DefaultFileRoots("skills", ".claude/skills") }

// DefaultFileRoots is DefaultFile with other skill roots: a registry kept
// on its own branch inside a project has its skills in .megagit/skills.
func DefaultFileRoots(roots ...string) []byte {
	var b strings.Builder
	b.WriteString("# megagit registry settings (committed). Every key is optional; a missing key\n")
	b.WriteString("# takes the default shown by `megagit config`. Precedence: this file < env\n")
	b.WriteString("# (MEGAGIT_<KEY>, e.g. MEGAGIT_ROUTE_TOP_K; MEGA_EVAL_* for blend weights) < flags.\n")
	b.WriteString("roots:\n")
	for _, r := range roots {
		b.WriteString("  - " + r + "\n")
	}
	b.WriteString("# Skills are also read from the agents' own folders (.claude/skills, .agents/skills,\n")
	b.WriteString("# .gemini/skills, here and in ~/) and the team registry of your user config;\n")
	b.WriteString("# turn a source off with e.g.  sources: {user: false, team: false}\n")
	return []byte(b.String())
}

// EnvNames are the environment variables Load and LoadUser read, and
// those that place the user-level skill folders, in a fixed order: a
// change to any of them can change the config or the skills read.
func EnvNames() []string {
	var out []string
	for _, s := range specs {
		out = append(out, envName(s.key))
		out = append(out, s.env...)
	}
	return append(out, TeamRegistryEnv, "XDG_CONFIG_HOME", "HOME")
}

// refuseUnknown fails, naming file and every key, when v holds a key that
// is not known: a typo must not be silently ignored.
func refuseUnknown(v *viper.Viper, known map[string]bool, file string) error {
	var unknown []string
	for _, k := range v.AllKeys() {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("%w %s: unknown field %s", ErrInvalid, file, strings.Join(unknown, ", "))
}
