package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/ranker"
)

// TestLoadHookSetsBadValuesAside checks a hook's load never fails over a
// setting: a bad value gives way to the one below it (the file's, else
// the default), and the problem names the field, the source, the value
// and what was used; Load, for commands, refuses the same input.
func TestLoadHookSetsBadValuesAside(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		check      func(*Config) bool
		problems   []string // FILE is the file's path
	}{
		{
			name: "bad env, no file", env: map[string]string{"MEGA_EVAL_COUNT_W": "abc"},
			check:    func(c *Config) bool { return c.Blend.CountW == 0.1 },
			problems: []string{`config: field blend.count_w (from env MEGA_EVAL_COUNT_W): "abc" is not a number; using the default, 0.1`},
		},
		{
			name: "bad env, good file", file: "blend:\n  count_w: 0.2\nroute:\n  top_k: 4\n", env: map[string]string{"MEGA_EVAL_COUNT_W": "abc"},
			check:    func(c *Config) bool { return c.Blend.CountW == 0.2 && c.Route.TopK == 4 },
			problems: []string{`config: field blend.count_w (from env MEGA_EVAL_COUNT_W): "abc" is not a number; using the file's value, 0.2`},
		},
		{
			name: "bad env, bad file", file: "blend:\n  count_w: x\n", env: map[string]string{"MEGAGIT_BLEND_COUNT_W": "abc"},
			check:    func(c *Config) bool { return c.Blend.CountW == 0.1 },
			problems: []string{`config: field blend.count_w (from env MEGAGIT_BLEND_COUNT_W): "abc" is not a number; using the default, 0.1`},
		},
		{
			name: "bad bool in env", env: map[string]string{"MEGAGIT_HOOK_SHADOW": "sometimes"},
			check:    func(c *Config) bool { return !c.Hook.Shadow },
			problems: []string{`config: field hook.shadow (from env MEGAGIT_HOOK_SHADOW): "sometimes" is not a boolean (true/false, on/off, yes/no, 1/0); using the default, false`},
		},
		{
			name: "env fails its check", env: map[string]string{"MEGAGIT_ROUTE_FORMAT": "yaml", "MEGAGIT_HOOK_DEADLINE_MS": "-5"},
			check: func(c *Config) bool { return c.Route.Format == "catalog" && c.Hook.Deadline.Milliseconds() == 500 },
			problems: []string{
				`config: field hook.deadline_ms (from env MEGAGIT_HOOK_DEADLINE_MS): must be positive, not -5; using the default, 500`,
				`config: field route.format (from env MEGAGIT_ROUTE_FORMAT): "yaml" is not catalog or compose; using the default, catalog`,
			},
		},
		{
			name: "bad file value", file: "hook:\n  shadow: maybe\nroute:\n  top_k: 3\n",
			check:    func(c *Config) bool { return !c.Hook.Shadow && c.Route.TopK == 3 },
			problems: []string{`config: field hook.shadow (from file FILE): "maybe" is not a boolean (true/false, on/off, yes/no, 1/0); using the default, false`},
		},
		{
			name: "bad roots in the file", file: "roots: [../up]\n",
			check:    func(c *Config) bool { return strings.Join(c.Roots, " ") == "skills .claude/skills" },
			problems: []string{`config: field roots (from file FILE): "../up" must be a relative path inside the registry; using the default, [skills .claude/skills]`},
		},
		{
			name: "unknown key", file: "route:\n  topk: 3\n  budget: 900\n",
			check:    func(c *Config) bool { return c.Route.TopK == 5 && c.Route.Budget == 900 },
			problems: []string{`config FILE: unknown field route.topk; ignored`},
		},
		{
			name: "gate that does not read", env: map[string]string{"MEGAGIT_DYNAMIC_K_GATE": "missing.json"},
			check:    func(c *Config) bool { return c.DynamicK.Gate == "auto" && c.DynamicK.Fitted == nil },
			problems: []string{`config: field dynamic_k.gate (from env MEGAGIT_DYNAMIC_K_GATE): `},
		},
		{
			name: "good values", file: "hook:\n  shadow: yes\n", env: map[string]string{"MEGA_EVAL_BLEND": "off"},
			check: func(c *Config) bool { return c.Hook.Shadow && !c.Blend.Enabled },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, file, strictErr := load(t, tt.file, tt.env)
			cfg, problems, err := LoadHook(file)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) {
				t.Errorf("config %+v", cfg)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %v, want %d", problems, len(tt.problems))
			}
			for i, p := range problems {
				if want := strings.ReplaceAll(tt.problems[i], "FILE", file); !strings.HasPrefix(p.Error(), want) || !errors.Is(p, ErrInvalid) {
					t.Errorf("problem %q\nwant %q", p, want)
				}
				if want := strings.TrimSuffix(p.Error(), "; "+p.Instead); strictErr == nil || strictErr.Error() != want && i == 0 {
					t.Errorf("Load: %v, want the first problem's error %q", strictErr, want)
				}
			}
			if len(tt.problems) == 0 && strictErr != nil {
				t.Errorf("Load: %v", strictErr)
			}
		})
	}
}

// TestLoadHookGateFallsBackToTheFile checks a bad gate in the
// environment gives way to the file's gate, read.
func TestLoadHookGateFallsBackToTheFile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".megagit"), 0o755); err != nil {
		t.Fatal(err)
	}
	weights := map[string]float64{}
	for _, f := range ranker.GateFeatures {
		weights[f] = 1
	}
	gate, _ := json.Marshal(map[string]any{"weights": weights, "bias": -1, "threshold": 0.5})
	if err := os.WriteFile(filepath.Join(root, "gate.json"), gate, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, ".megagit", FileName)
	if err := os.WriteFile(file, []byte("dynamic_k:\n  gate: gate.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(file, nil); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MEGAGIT_DYNAMIC_K_GATE", "nope.json")
	cfg, problems, err := LoadHook(file)
	if err != nil || cfg.DynamicK.Gate != "gate.json" || cfg.DynamicK.Fitted == nil || len(problems) != 1 || !strings.HasSuffix(problems[0].Error(), "; using the file's value, gate.json") {
		t.Fatalf("LoadHook = %+v, %v, %v", cfg, problems, err)
	}
}

// TestLoadHookRefusesABrokenFile checks a file that is not YAML is still
// an error in a hook: which of its settings were meant cannot be told.
func TestLoadHookRefusesABrokenFile(t *testing.T) {
	_, _, file, _ := load(t, "route: [\n", nil)
	if _, _, err := LoadHook(file); err == nil || !errors.Is(err, ErrInvalid) {
		t.Fatalf("LoadHook of broken YAML: %v", err)
	}
}
