package skillfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLintSkill(t *testing.T) {
	many, err := os.ReadFile(filepath.Join("testdata", "lint", "many-problems.md"))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line     int
		field    string
		severity string
		msg      string
	}
	tests := []struct {
		name string
		dir  string
		data string
		want []want
	}{
		{"clean", "pdf", "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n", nil},
		{"many problems", "many-problems", string(many), []want{
			{2, "name", "error", `"Wrong-Name" does not match the folder name "many-problems"`},
			{5, "mega_meta.helpful_count", "error", "whole number"},
			{6, "mega_meta.harmful_count", "error", "0 or more"},
			{7, "mega_meta.status", "error", "unknown status"},
			{8, "mega_meta.trajectory_weight", "error", "between 0.3 and 1.5"},
			{9, "mega_meta.color", "warning", "unknown key"},
			{10, "description", "error", "missing"},
		}},
		{"bad folder and empty fields", "Bad_Dir", "---\nname: \"\"\ndescription:\n---\n", []want{
			{0, "name", "error", "folder name: skill name \"Bad_Dir\" contains the uppercase letter 'B'"},
			{2, "name", "error", "is empty"},
			{3, "description", "error", "is empty"},
		}},
		{"long description", "long", "---\nname: long\ndescription: " + strings.Repeat("x", 1025) + "\n---\n", []want{
			{3, "description", "warning", "1025 characters"},
		}},
		{"non-string fields", "x", "---\nname: [x]\ndescription: {a: b}\nmega_meta: 3\n---\n", []want{
			{2, "name", "error", "must be a string"},
			{3, "description", "error", "must be a string"},
			{4, "mega_meta", "error", "must be a mapping"},
		}},
		{"when_to_use not a string", "w", "---\nname: w\ndescription: Deploy.\nwhen_to_use: [a, b]\n---\n", []want{
			{4, "when_to_use", "error", "must be a string"},
		}},
		{"description and when_to_use too long together", "w", "---\nname: w\ndescription: " + strings.Repeat("x", 1000) + "\nwhen_to_use: " + strings.Repeat("y", 600) + "\n---\n", []want{
			{4, "when_to_use", "warning", "1601 characters together; Claude Code cuts them at 1536"},
		}},
		{"parse error stops", "x", "---\nname: x\ndescription: [\n---\n", []want{
			{0, "", "error", "malformed YAML"},
		}},
		{"no frontmatter", "x", "# just markdown\n", []want{
			{1, "", "error", `must start with a "---" line`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "skills/" + tt.dir + "/SKILL.md"
			got := Lint(tt.dir, path, []byte(tt.data))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				p := got[i]
				if p.File != path || (w.line != 0 && p.Line != w.line) || p.Field != w.field || p.Severity != w.severity || !strings.Contains(p.Message, w.msg) {
					t.Errorf("problem %d = %+v, want %+v", i, p, w)
				}
			}
		})
	}
}

func TestLintProblemJSON(t *testing.T) {
	p := Problem{File: "a", Line: 2, Field: "name", Message: "m", Severity: SeverityError}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"file": "a", "line": 2.0, "field": "name", "message": "m", "severity": "error"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %s", b)
	}
}

// TestLintRealSkills: skills as their authors published them lint without
// an error, so lint never fails a user's real skill over a form it does
// not know.
func TestLintRealSkills(t *testing.T) {
	files := realSkills(t)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range Lint(filepath.Base(filepath.Dir(file)), file, data) {
			if p.Severity == SeverityError {
				t.Errorf("%s:%d: %s: %s", p.File, p.Line, p.Field, p.Message)
			}
		}
	}
}
