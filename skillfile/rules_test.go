package skillfile

import (
	"reflect"
	"strings"
	"testing"
)

func TestSkillRules(t *testing.T) {
	tests := []struct {
		name      string
		front     string
		userOnly  bool
		paths     []string
		pathsErr  string
		lintField string
	}{
		{name: "none", front: ""},
		{name: "user only", front: "disable-model-invocation: true\n", userOnly: true},
		{name: "user only as a string", front: "disable-model-invocation: \"true\"\n", userOnly: true},
		{name: "yes is not true", front: "disable-model-invocation: yes\n", lintField: "disable-model-invocation"},
		{name: "comma string", front: "paths: \"src/**/*.ts, lib/{a,b}/**\"\n", paths: []string{"src/**/*.ts", "lib/{a,b}"}},
		{name: "list", front: "paths:\n  - docs/**\n  - \"*.md, *.txt\"\n", paths: []string{"docs", "*.md", "*.txt"}},
		{name: "only everything", front: "paths: \"**\"\n"},
		{name: "a mapping", front: "paths: {a: b}\n", pathsErr: "field paths: must be a string or a list of strings, found a mapping", lintField: "paths"},
		{name: "a number in the list", front: "paths:\n  - src/*.go\n  - 3\n", pathsErr: "field paths[1]: must be a string (a glob), found a single value (int)", lintField: "paths[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte("---\nname: s\ndescription: Does things. Use when testing.\n" + tt.front + "---\nBody.\n")
			f, err := Parse("s/SKILL.md", data)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.DisableModelInvocation(); got != tt.userOnly {
				t.Errorf("DisableModelInvocation = %v, want %v", got, tt.userOnly)
			}
			paths, err := f.Paths()
			if tt.pathsErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.pathsErr) {
					t.Errorf("Paths error %v, want %q", err, tt.pathsErr)
				}
			} else if err != nil || !reflect.DeepEqual(paths, tt.paths) {
				t.Errorf("Paths = %q, %v; want %q", paths, err, tt.paths)
			}
			var fields []string
			for _, p := range Lint("s", "s/SKILL.md", data) {
				fields = append(fields, p.Field)
			}
			if tt.lintField != "" && !strings.Contains(strings.Join(fields, " "), tt.lintField) {
				t.Errorf("lint fields %q, want %s", fields, tt.lintField)
			}
			if tt.lintField == "" && len(fields) > 0 {
				t.Errorf("lint fields %q, want none", fields)
			}
		})
	}
}

func TestParseOpenAIPolicy(t *testing.T) {
	tests := []struct {
		yaml     string
		implicit bool
		err      string
	}{
		{"", true, ""},
		{"interface:\n  display_name: X\n", true, ""},
		{"policy:\n  allow_implicit_invocation: false\n", false, ""},
		{"policy:\n  allow_implicit_invocation: true\n", true, ""},
		{"policy:\n  allow_implicit_invocation: maybe\n", false, "a.yaml:2: field policy.allow_implicit_invocation: must be true or false"},
		{"policy: [1]\n", false, "field policy: must be a mapping"},
		{"policy: {\n", false, "a.yaml: yaml:"},
	}
	for _, tt := range tests {
		implicit, err := ParseOpenAIPolicy("a.yaml", []byte(tt.yaml))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.yaml, err, tt.err)
			}
			continue
		}
		if err != nil || implicit != tt.implicit {
			t.Errorf("%q: %v, %v; want %v", tt.yaml, implicit, err, tt.implicit)
		}
	}
}

func TestValidateRef(t *testing.T) {
	for _, ok := range []string{"pdf", "formatter:format-go"} {
		if err := ValidateRef(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"a:b:c", ":b", "a:", "../x:y", "A:b"} {
		if err := ValidateRef(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
