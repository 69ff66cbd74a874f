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

func TestAuditFlags(t *testing.T) {
	testFlags(t, newAuditCmd, func(o *auditOptions) { o.app = nil }, []flagCase[auditOptions]{
		{name: "every skill", want: auditOptions{names: []string{}}},
		{name: "names and json", args: []string{"a", "b", "--json"}, want: auditOptions{names: []string{"a", "b"}, json: true}},
		{name: "unknown flag", args: []string{"--allow", "x"}, wantErr: "unknown flag: --allow"},
	})
}
