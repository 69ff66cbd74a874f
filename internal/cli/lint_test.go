package cli

import "testing"

func TestLintFlags(t *testing.T) {
	testFlags(t, newLintCmd, func(o *lintOptions) { o.app = nil }, []flagCase[lintOptions]{
		{name: "table", want: lintOptions{}},
		{name: "json", args: []string{"--json"}, want: lintOptions{json: true}},
		{name: "a skill name", args: []string{"flaky-tests"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--fix"}, wantErr: "unknown flag: --fix"},
	})
}
