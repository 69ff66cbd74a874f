package route

import (
	"reflect"
	"testing"

	"github.com/megagit/megagit/ranker"
)

func TestWhereMatches(t *testing.T) {
	tests := []struct {
		name  string
		globs []string
		where Where
		want  bool
	}{
		{"file under a deep glob", []string{"src/api/**/*.ts"}, Where{Dir: ".", Files: []string{"src/api/users/list.ts"}}, true},
		{"file of another type", []string{"src/api/**/*.ts"}, Where{Dir: ".", Files: []string{"src/api/users/list.go"}}, false},
		{"no slash: any depth", []string{"*.ts"}, Where{Files: []string{"a/b/c.ts"}}, true},
		{"anchored", []string{"/README.md"}, Where{Files: []string{"docs/README.md"}}, false},
		{"folder glob covers its files", []string{"lib/api"}, Where{Files: []string{"lib/api/x/y.go"}}, true},
		{"cwd inside the glob's base", []string{"src/api/**/*.ts"}, Where{Dir: "src/api/users"}, true},
		{"cwd is the base", []string{"src/api/**/*.ts"}, Where{Dir: "src/api"}, true},
		{"cwd above the base", []string{"src/api/**/*.ts"}, Where{Dir: "src"}, false},
		{"cwd elsewhere", []string{"src/api/**/*.ts"}, Where{Dir: "docs"}, false},
		{"cwd matches a folder glob", []string{"docs"}, Where{Dir: "docs/guide"}, true},
		{"wildcard glob says nothing of the cwd", []string{"*.ts"}, Where{Dir: "src"}, false},
		{"top says nothing", []string{"src/**"}, Where{Dir: "."}, false},
		{"one of several", []string{"a/*.go", "b/*.go"}, Where{Files: []string{"b/x.go"}}, true},
		{"braces", []string{"src/*.{ts,tsx}"}, Where{Files: []string{"src/x.tsx"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.where.Matches(tt.globs); got != tt.want {
				t.Errorf("%v at %+v: %v, want %v", tt.globs, tt.where, got, tt.want)
			}
		})
	}
}

func TestOut(t *testing.T) {
	docs := []ranker.Doc{{ID: "a"}, {ID: "b", Paths: []string{"src/**/*.go"}}}
	if got := Out(docs, &Where{Files: []string{"src/x.go"}}); got != nil {
		t.Errorf("matching file: %v, want none out", got)
	}
	if got := Out(docs, nil); !reflect.DeepEqual(got, []bool{false, true}) {
		t.Errorf("no where: %v, want the skill with paths out", got)
	}
	if got := Out(docs[:1], nil); got != nil {
		t.Errorf("no paths: %v, want nil", got)
	}
}

func TestPromptFiles(t *testing.T) {
	got := PromptFiles(`fix "src/api/users.ts", then README.md and @cmd/main.go; see https://x.io/a.html, version 1.5 and the end.`)
	want := []string{"src/api/users.ts", "README.md", "cmd/main.go"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PromptFiles = %q, want %q", got, want)
	}
}

func TestCheckGlobs(t *testing.T) {
	if err := CheckGlobs([]string{"src/**/*.go", "*.{ts,tsx}"}); err != nil {
		t.Errorf("good globs: %v", err)
	}
	if err := CheckGlobs([]string{"ok/*.go", "src/[api"}); err == nil || err.Error() != `not a glob: "src/[api"` {
		t.Errorf("bad glob: %v", err)
	}
}
