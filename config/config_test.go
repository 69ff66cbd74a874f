package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func source(settings []Setting, key string) (any, string) {
	for _, s := range settings {
		if s.Key == key {
			return s.Value, s.Source
		}
	}
	return nil, ""
}

// load runs Load on a file with body (none when empty) and the
// environment env (on top of a clean one).
func load(t *testing.T, body string, env map[string]string) (*Config, []Setting, string, error) {
	t.Helper()
	for _, name := range EnvNames()[:len(EnvNames())-5] { // not the user config's
		t.Setenv(name, "") // restored when the test ends
		os.Unsetenv(name)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	file := ""
	if body != "" {
		file = writeFile(t, body)
	}
	cfg, settings, err := Load(file, nil)
	return cfg, settings, file, err
}

// TestKinds reads every kind of setting from the file and the
// environment, good values and bad.
func TestKinds(t *testing.T) {
	const notBool = "is not a boolean (true/false, on/off, yes/no, 1/0)"
	tests := []struct {
		name, file string
		env        map[string]string
		key        string
		want       any    // the value `megagit config` shows
		err        string // after "field KEY (from SOURCE): "; FILE is the file's path
	}{
		{name: "float env", env: map[string]string{"MEGA_EVAL_COUNT_W": "0.25"}, key: "blend.count_w", want: 0.25},
		{name: "float env spaces", env: map[string]string{"MEGA_EVAL_COUNT_W": " 0.3 "}, key: "blend.count_w", want: 0.3},
		{name: "float file", file: "blend:\n  count_w: 0.2\n", key: "blend.count_w", want: 0.2},
		{name: "float file integer", file: "blend:\n  harm_w: 2\n", key: "blend.harm_w", want: 2.0},
		{name: "float env not a number", env: map[string]string{"MEGA_EVAL_COUNT_W": "abc"}, key: "blend.count_w", err: `env MEGA_EVAL_COUNT_W): "abc" is not a number`},
		{name: "float env NaN", env: map[string]string{"MEGAGIT_BLEND_HARM_W": "NaN"}, key: "blend.harm_w", err: `env MEGAGIT_BLEND_HARM_W): "NaN" is not a number`},
		{name: "float file string", file: "model:\n  fusion_w: lots\n", key: "model.fusion_w", err: `file FILE): "lots" is not a number`},
		{name: "float check", env: map[string]string{"MEGAGIT_ROUTE_MMR_LAMBDA": "1.5"}, key: "route.mmr_lambda", err: `env MEGAGIT_ROUTE_MMR_LAMBDA): must be within [0, 1], not 1.5`},

		{name: "int env", env: map[string]string{"MEGAGIT_ROUTE_TOP_K": "7"}, key: "route.top_k", want: 7},
		{name: "int env leading zero", env: map[string]string{"MEGAGIT_ROUTE_TOP_K": "08"}, key: "route.top_k", want: 8},
		{name: "int file float without fraction", file: "route:\n  budget: 900.0\n", key: "route.budget", want: 900},
		{name: "int file fraction", file: "route:\n  top_k: 4.5\n", key: "route.top_k", err: `file FILE): 4.5 is not a whole number`},
		{name: "int env fraction", env: map[string]string{"MEGAGIT_ROUTE_BUDGET": "2.5"}, key: "route.budget", err: `env MEGAGIT_ROUTE_BUDGET): "2.5" is not a whole number`},
		{name: "int file word", file: "route:\n  top_k: many\n", key: "route.top_k", err: `file FILE): "many" is not a whole number`},
		{name: "int below min", env: map[string]string{"MEGAGIT_ROUTE_TOP_K": "0"}, key: "route.top_k", err: `env MEGAGIT_ROUTE_TOP_K): must be at least 1, not 0`},
		{name: "int negative", file: "route:\n  budget: -3\n", key: "route.budget", err: `file FILE): must not be negative, not -3`},

		{name: "bool env off", env: map[string]string{"MEGA_EVAL_BLEND": "off"}, key: "blend.enabled", want: false},
		{name: "bool env no", env: map[string]string{"MEGA_EVAL_BLEND": "no"}, key: "blend.enabled", want: false},
		{name: "bool env 0", env: map[string]string{"MEGA_EVAL_BLEND": "0"}, key: "blend.enabled", want: false},
		{name: "bool env FALSE", env: map[string]string{"MEGA_EVAL_BLEND": "FALSE"}, key: "blend.enabled", want: false},
		{name: "bool env Off spaced", env: map[string]string{"MEGA_EVAL_BLEND": " Off "}, key: "blend.enabled", want: false},
		{name: "bool env on", env: map[string]string{"MEGAGIT_HOOK_SHADOW": "on"}, key: "hook.shadow", want: true},
		{name: "bool env YES", env: map[string]string{"MEGAGIT_HOOK_SHADOW": "YES"}, key: "hook.shadow", want: true},
		{name: "bool env 1", env: map[string]string{"MEGAGIT_HOOK_SHADOW": "1"}, key: "hook.shadow", want: true},
		{name: "bool env True", env: map[string]string{"MEGAGIT_HOOK_SHADOW": "True"}, key: "hook.shadow", want: true},
		{name: "bool file true", file: "hook:\n  shadow: true\n", key: "hook.shadow", want: true},
		{name: "bool file on", file: "hook:\n  shadow: on\n", key: "hook.shadow", want: true},
		{name: "bool file no", file: "sources:\n  user: no\n", key: "sources.user", want: false},
		{name: "bool file 1", file: "hook:\n  log_prompts: 1\n", key: "hook.log_prompts", want: true},
		{name: "bool file 0", file: "route:\n  dynamic_k: 0\n", key: "route.dynamic_k", want: false},
		{name: "bool env word", env: map[string]string{"MEGA_EVAL_BLEND": "maybe"}, key: "blend.enabled", err: `env MEGA_EVAL_BLEND): "maybe" ` + notBool},
		{name: "bool env t", env: map[string]string{"MEGA_EVAL_BLEND": "t"}, key: "blend.enabled", err: `env MEGA_EVAL_BLEND): "t" ` + notBool},
		{name: "bool file 2", file: "hook:\n  shadow: 2\n", key: "hook.shadow", err: `file FILE): 2 ` + notBool},

		{name: "string env", env: map[string]string{"MEGAGIT_MODEL_ID": "none"}, key: "model.id", want: "none"},
		{name: "string legacy env", env: map[string]string{"MEGAGIT_ONNXRUNTIME_LIB": "/opt/ort.so"}, key: "model.onnxruntime", want: "/opt/ort.so"},
		{name: "string file number", file: "model:\n  id: 2024\n", key: "model.id", want: "2024"},
		{name: "string file list", file: "model:\n  id: [a, b]\n", key: "model.id", err: `file FILE): [a b] is not a single value`},
		{name: "string oneof", file: "route:\n  format: yaml\n", key: "route.format", err: `file FILE): "yaml" is not catalog or compose`},
		{name: "string oneof with empty", env: map[string]string{"MEGAGIT_DYNAMIC_K_TIER": "huge"}, key: "dynamic_k.tier", err: `env MEGAGIT_DYNAMIC_K_TIER): "huge" is not strong, medium or weak`},

		{name: "list env commas", env: map[string]string{"MEGAGIT_ROOTS": "a,b"}, key: "roots", want: []string{"a", "b"}},
		{name: "list env colons", env: map[string]string{"MEGAGIT_ROOTS": "a:b/c"}, key: "roots", want: []string{"a", "b/c"}},
		{name: "list env spaces", env: map[string]string{"MEGAGIT_ROOTS": " a , b ,"}, key: "roots", want: []string{"a", "b"}},
		{name: "list file", file: "roots: [x, y/z]\n", key: "roots", want: []string{"x", "y/z"}},
		{name: "list file one string", file: "roots: x\n", key: "roots", want: []string{"x"}},
		{name: "list file nested", file: "roots: [[a]]\n", key: "roots", err: `file FILE): [[a]]: [a] is not a single value`},
		{name: "list escapes", file: "roots: [../elsewhere]\n", key: "roots", err: `file FILE): "../elsewhere" must be a relative path inside the registry`},
		{name: "list local state", file: "roots: [skills, .megagit/local/x]\n", key: "roots", err: `file FILE): ".megagit/local/x" is git's own folder or .megagit/local (this machine's own state), never a folder of skills`},
		{name: "list git folder", file: "roots: [./.git]\n", key: "roots", err: `file FILE): "./.git" is git's own folder or .megagit/local (this machine's own state), never a folder of skills`},
		{name: "list empty", env: map[string]string{"MEGAGIT_ROOTS": ","}, key: "roots", err: `env MEGAGIT_ROOTS): needs at least one folder`},

		{name: "duration env", env: map[string]string{"MEGAGIT_HOOK_DEADLINE_MS": "750"}, key: "hook.deadline_ms", want: int64(750)},
		{name: "duration file", file: "lock:\n  timeout_ms: 250\n", key: "lock.timeout_ms", want: int64(250)},
		{name: "duration env unit", env: map[string]string{"MEGAGIT_HOOK_DEADLINE_MS": "1s"}, key: "hook.deadline_ms", err: `env MEGAGIT_HOOK_DEADLINE_MS): "1s" is not a whole number of milliseconds`},
		{name: "duration not positive", env: map[string]string{"MEGAGIT_HOOK_DEADLINE_MS": "0"}, key: "hook.deadline_ms", err: `env MEGAGIT_HOOK_DEADLINE_MS): must be positive, not 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, settings, file, err := load(t, tt.file, tt.env)
			if tt.err != "" {
				want := "config: field " + tt.key + " (from " + strings.ReplaceAll(tt.err, "FILE", file)
				if err == nil || err.Error() != want || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := source(settings, tt.key); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.key, got, tt.want)
			}
			if tt.key == "hook.deadline_ms" && cfg.Hook.Deadline != 750*time.Millisecond {
				t.Errorf("deadline %v, want 750ms", cfg.Hook.Deadline)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	tests := []struct {
		name       string
		file       bool
		env        map[string]string
		flag       string
		wantTopK   int
		wantSource string
	}{
		{"default when nothing set", false, nil, "", 5, "default"},
		{"file over default", true, nil, "", 4, "file"},
		{"env over file", true, map[string]string{"MEGAGIT_ROUTE_TOP_K": "7"}, "", 7, "env MEGAGIT_ROUTE_TOP_K"},
		{"an empty variable is unset", true, map[string]string{"MEGAGIT_ROUTE_TOP_K": ""}, "", 4, "file"},
		{"flag over env", true, map[string]string{"MEGAGIT_ROUTE_TOP_K": "7"}, "3", 3, "flag --top-k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			fs.Int("top-k", 0, "")
			if tt.flag != "" {
				if err := fs.Parse([]string{"--top-k", tt.flag}); err != nil {
					t.Fatal(err)
				}
			}
			f := ""
			if tt.file {
				f = writeFile(t, "route:\n  top_k: 4\nblend:\n  count_w: 0.2\n")
			}
			cfg, settings, err := Load(f, fs)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Route.TopK != tt.wantTopK {
				t.Errorf("top_k = %d, want %d", cfg.Route.TopK, tt.wantTopK)
			}
			if _, src := source(settings, "route.top_k"); !strings.HasPrefix(src, tt.wantSource) {
				t.Errorf("source %q, want %q", src, tt.wantSource)
			}
			if v, src := source(settings, "blend.count_w"); tt.file && (v != 0.2 || src != "file "+f) {
				t.Errorf("blend.count_w %v from %q, want 0.2 from the file", v, src)
			}
		})
	}
}

func TestSeedEnvNames(t *testing.T) {
	t.Setenv("MEGA_EVAL_BLEND", "0")
	t.Setenv("MEGA_EVAL_HARM_W", "2.5")
	cfg, _, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Blend.Enabled || cfg.Blend.HarmW != 2.5 {
		t.Fatalf("blend %+v", cfg.Blend)
	}
	// MEGAGIT_* wins over the MEGA_EVAL_* name when both are set.
	t.Setenv("MEGAGIT_BLEND_HARM_W", "3")
	cfg, settings, _ := Load("", nil)
	if _, src := source(settings, "blend.harm_w"); cfg.Blend.HarmW != 3 || src != "env MEGAGIT_BLEND_HARM_W" {
		t.Fatalf("harm_w %v from %q, want 3 from MEGAGIT_BLEND_HARM_W", cfg.Blend.HarmW, src)
	}
}

// TestEveryKeyAndDefault pins the settings, their defaults and
// environment names: the struct tags are the only list of them.
func TestEveryKeyAndDefault(t *testing.T) {
	want := map[string]any{
		"blend.context_w": 0.15, "blend.count_w": 0.1, "blend.enabled": true, "blend.half_life_days": 30.0, "blend.harm_w": 1.5, "blend.learnt_w": 0.5, "blend.related_w": 0.1,
		"dynamic_k.abs_floor": 0.0, "dynamic_k.abstain_z_ent": 0.0, "dynamic_k.abstain_z_top1": 0.0, "dynamic_k.ambig_z_ent": 0.0,
		"dynamic_k.gate": "auto", "dynamic_k.tier": "", "dynamic_k.very_ambig_z_ent": 0.0,
		"hook.deadline_ms": int64(500), "hook.log_prompts": false, "hook.output": "text", "hook.refresh": "background", "hook.serve": "auto", "hook.shadow": false,
		"lexical.b": 0.0, "lexical.fast_margin": 0.0, "lexical.fast_min": 0.0, "lexical.k1": 0.0, "lexical.w_body": 0.0,
		"lexical.w_contexts": 0.0, "lexical.w_description": 0.0, "lexical.w_headings": 0.0, "lexical.w_name": 0.0, "lexical.w_triggers": 0.0,
		"lint.duplicate_cosine": 0.0, "lock.timeout_ms": int64(30000), "network.timeout_ms": int64(60000),
		"model.abs_floor": 0.0, "model.cache_float16": false, "model.dir": "", "model.fusion_w": 0.0, "model.id": "megagit-static-v3", "model.onnxruntime": "",
		"roots": []string{"skills", ".claude/skills"}, "deny": []string(nil), "force": []string(nil), "audit.allow": Pairs(nil),
		"route.budget": 800, "route.dynamic_k": true, "route.format": "catalog", "route.mmr_lambda": 0.7, "route.top_k": 5,
		"serve.idle_ms":  int64(1800000),
		"sources.claude": true, "sources.codex": true, "sources.gemini": true, "sources.opencode": true, "sources.copilot": true, "sources.plugins": true, "sources.team": true, "sources.user": true,
	}
	_, settings, _, err := load(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(settings) != len(want) {
		t.Errorf("%d settings, want %d", len(settings), len(want))
	}
	env := strings.Join(EnvNames(), " ")
	for i, s := range settings {
		if i > 0 && settings[i-1].Key >= s.Key {
			t.Errorf("settings not sorted by key: %s before %s", settings[i-1].Key, s.Key)
		}
		if w, ok := want[s.Key]; !ok || !reflect.DeepEqual(s.Value, w) || s.Source != "default" || s.Help == "" {
			t.Errorf("%s = %#v (%s, help %q), want %#v", s.Key, s.Value, s.Source, s.Help, w)
		}
		if name := "MEGAGIT_" + strings.ToUpper(strings.ReplaceAll(s.Key, ".", "_")); !strings.Contains(env, name) {
			t.Errorf("EnvNames lacks %s", name)
		}
	}
	for _, name := range []string{"MEGA_EVAL_BLEND", "MEGA_EVAL_COUNT_W", "MEGA_EVAL_CONTEXT_W", "MEGA_EVAL_HARM_W", "MEGA_EVAL_RELATED_W", "MEGAGIT_ONNXRUNTIME_LIB", TeamRegistryEnv, UserRegistryEnv, "XDG_DATA_HOME", "HOME"} {
		if !strings.Contains(env, name) {
			t.Errorf("EnvNames lacks %s", name)
		}
	}
}

func TestBadInputNamesFieldAndSource(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		want       string // FILE is the file's path
	}{
		{"unknown key", "route:\n  topk: 3\n", nil, "config FILE: unknown field route.topk"},
		{"unknown keys", "zz: 1\nroute:\n  topk: 3\n  top_k: 3\n", nil, "config FILE: unknown field route.topk, zz"},
		{"unknown shadowing key", "route: 3\n", nil, "config FILE: unknown field route"},
		{"a map for a list", "roots: {a: 1}\n", nil, "config FILE: unknown field roots.a"},
		{"wrong type in file", "route:\n  top_k: many\n", nil, `config: field route.top_k (from file FILE): "many" is not a whole number`},
		{"wrong type in env", "", map[string]string{"MEGAGIT_BLEND_COUNT_W": "x"}, `config: field blend.count_w (from env MEGAGIT_BLEND_COUNT_W): "x" is not a number`},
		{"bad format", "route:\n  format: yaml\n", nil, `config: field route.format (from file FILE): "yaml" is not catalog or compose`},
		{"bad tier", "dynamic_k:\n  tier: huge\n", nil, `config: field dynamic_k.tier (from file FILE): "huge" is not strong, medium or weak`},
		{"bad hook refresh", "", map[string]string{"MEGAGIT_HOOK_REFRESH": "sometimes"}, `config: field hook.refresh (from env MEGAGIT_HOOK_REFRESH): "sometimes" is not background, wait or off`},
		{"bad hook output", "hook:\n  output: xml\n", nil, `config: field hook.output (from file FILE): "xml" is not text or json`},
		{"missing gate", "dynamic_k:\n  gate: nope.json\n", nil, "config: field dynamic_k.gate (from file FILE): "},
		{"the first bad field", "route:\n  top_k: 0\n  format: yaml\n", nil, "config: field route.format (from file FILE)"},
		{"malformed yaml", "route: [\n", nil, "config FILE: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, file, err := load(t, tt.file, tt.env)
			want := strings.ReplaceAll(tt.want, "FILE", file)
			if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err %v, want it to start with %q", err, want)
			}
		})
	}
}

func TestSetKeepsCommentsAndOtherKeys(t *testing.T) {
	in := []byte("# my settings\nroots:\n  - skills # main\nroute:\n  top_k: 4\n")
	out, err := Set(in, map[string]any{"model.id": "none", "route.budget": 900, "route.top_k": nil})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"# my settings", "- skills # main", "model:\n  id: none", "budget: 900"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "top_k") {
		t.Errorf("top_k not removed:\n%s", s)
	}
	if _, err := Set(in, map[string]any{"route.nope": 1}); err == nil {
		t.Error("unknown key accepted")
	}
	p := writeFile(t, s)
	cfg, _, err := Load(p, nil)
	if err != nil || cfg.Model.ID != "none" || cfg.Route.Budget != 900 {
		t.Fatalf("reload: %+v %v", cfg, err)
	}
}

func TestOnlyListedFlagsOverride(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("dir", "", "") // the global -C/--dir, not model.dir
	fs.String("format", "", "")
	fs.Bool("float16", false, "")
	fs.Int("budget", 0, "")
	if err := fs.Parse([]string{"--dir", "somewhere", "--format", "compose", "--float16", "--budget", "0"}); err != nil {
		t.Fatal(err)
	}
	cfg, settings, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Dir != "" {
		t.Fatalf("--dir leaked into model.dir: %q", cfg.Model.Dir)
	}
	if cfg.Route.Format != "compose" || !cfg.Model.CacheFloat16 || cfg.Route.Budget != 0 {
		t.Fatalf("flags not applied: format %q float16 %v budget %d", cfg.Route.Format, cfg.Model.CacheFloat16, cfg.Route.Budget)
	}
	if _, src := source(settings, "model.cache_float16"); src != "flag --float16" {
		t.Errorf("model.cache_float16 from %q", src)
	}
	fs = pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("format", "", "")
	if err := fs.Parse([]string{"--format", "yaml"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load("", fs); err == nil || err.Error() != `config: field route.format (from flag --format): "yaml" is not catalog or compose` {
		t.Errorf("a bad flag: %v", err)
	}
}

// TestDefaultsAreGood checks Load with nothing set, the walk of the tags
// included, and the keys Set knows.
func TestDefaultsAreGood(t *testing.T) {
	cfg, _, _, err := load(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Hook.Deadline != 500*time.Millisecond || cfg.Lock.Timeout != 30*time.Second || !cfg.Blend.Enabled || cfg.DynamicK.Fitted != nil {
		t.Fatalf("defaults: %+v", cfg)
	}
	for _, f := range fields {
		if _, err := Set(nil, map[string]any{f.key: f.def}); err != nil {
			t.Errorf("Set %s: %v", f.key, err)
		}
	}
}

// TestNoFloatTakesNaNOrInf: every float setting refuses YAML's .nan, .inf
// and -.inf in the file, naming the file and the key, for a command and
// for a hook (which sets the value aside).
func TestNoFloatTakesNaNOrInf(t *testing.T) {
	n := 0
	for _, f := range fields {
		if f.typ.Kind() != reflect.Float64 {
			continue
		}
		n++
		section, key, nested := strings.Cut(f.key, ".")
		for _, bad := range []string{".nan", ".inf", "-.inf", ".NaN"} {
			body := section + ": " + bad + "\n"
			if nested {
				body = section + ":\n  " + key + ": " + bad + "\n"
			}
			_, _, file, err := load(t, body, nil)
			want := "config: field " + f.key + " (from file " + file + "): "
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "is not a number") {
				t.Errorf("%s: %s: Load: %v, want an error starting %q", f.key, bad, err, want)
			}
			_, problems, err := LoadHook(file)
			if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Error(), want) {
				t.Errorf("%s: %s: LoadHook: %v, %v", f.key, bad, problems, err)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d float settings", n)
	}
}
