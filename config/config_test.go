package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestPrecedence(t *testing.T) {
	file := writeFile(t, "route:\n  top_k: 4\nblend:\n  count_w: 0.2\n")
	tests := []struct {
		name       string
		env        map[string]string
		flag       string
		wantTopK   int
		wantSource string
	}{
		{"default when nothing set", nil, "", 10, "default"},
		{"file over default", nil, "", 4, "file"},
		{"env over file", map[string]string{"MEGAGIT_ROUTE_TOP_K": "7"}, "", 7, "env MEGAGIT_ROUTE_TOP_K"},
		{"flag over env", map[string]string{"MEGAGIT_ROUTE_TOP_K": "7"}, "3", 3, "flag --top-k"},
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
			f := file
			if tt.name == "default when nothing set" {
				f = ""
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
	// MEGAGIT_* wins over the seed name when both are set.
	t.Setenv("MEGAGIT_BLEND_HARM_W", "3")
	cfg, _, _ = Load("", nil)
	if cfg.Blend.HarmW != 3 {
		t.Fatalf("harm_w %v, want 3", cfg.Blend.HarmW)
	}
}

func TestBadInputNamesFieldAndSource(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"unknown key", "route:\n  topk: 3\n", nil, "unknown field route.topk"},
		{"wrong type in file", "route:\n  top_k: many\n", nil, "field route.top_k (from file"},
		{"wrong type in env", "", map[string]string{"MEGAGIT_BLEND_COUNT_W": "x"}, "field blend.count_w (from env MEGAGIT_BLEND_COUNT_W)"},
		{"bad format", "route:\n  format: yaml\n", nil, "field route.format"},
		{"bad tier", "dynamic_k:\n  tier: huge\n", nil, "field dynamic_k.tier"},
		{"bad hook refresh", "", map[string]string{"MEGAGIT_HOOK_REFRESH": "sometimes"}, "field hook.refresh: \"sometimes\" is not background, wait or off"},
		{"root escapes", "roots: [../elsewhere]\n", nil, "field roots"},
		{"malformed yaml", "route: [\n", nil, "config "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			f := ""
			if tt.file != "" {
				f = writeFile(t, tt.file)
			}
			_, _, err := Load(f, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to contain %q", err, tt.want)
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
	if err := fs.Parse([]string{"--dir", "somewhere"}); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Dir != "" {
		t.Fatalf("--dir leaked into model.dir: %q", cfg.Model.Dir)
	}
}
