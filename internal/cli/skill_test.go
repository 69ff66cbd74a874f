package cli

import "testing"

func TestSkillFlags(t *testing.T) {
	t.Run("add", func(t *testing.T) {
		testFlags(t, newSkillAddCmd, func(o *skillAddOptions) { o.app = nil }, []flagCase[skillAddOptions]{
			{name: "name and description", args: []string{"flaky-tests", "--description", "Find why tests fail randomly"},
				want: skillAddOptions{name: "flaky-tests", description: "Find why tests fail randomly"}},
			{name: "body from stdin", args: []string{"flaky-tests", "--description", "d", "--body-file", "-"},
				want: skillAddOptions{name: "flaky-tests", description: "d", bodyFile: "-"}},
			{name: "json", args: []string{"flaky-tests", "--description", "d", "--json"},
				want: skillAddOptions{name: "flaky-tests", description: "d", json: true}},
			{name: "no name", args: []string{"--description", "d"}, wantErr: "expects a skill NAME"},
			{name: "two names", args: []string{"a", "b"}, wantErr: "expects a skill NAME"},
			{name: "description without text", args: []string{"a", "--description"}, wantErr: "flag needs an argument: --description"},
			{name: "unknown flag", args: []string{"a", "--desc", "d"}, wantErr: "unknown flag: --desc"},
		})
	})
	t.Run("list", func(t *testing.T) {
		testFlags(t, newSkillListCmd, func(o *skillListOptions) { o.app = nil }, []flagCase[skillListOptions]{
			{name: "table", want: skillListOptions{}},
			{name: "json", args: []string{"--json"}, want: skillListOptions{json: true}},
			{name: "an argument", args: []string{"flaky-tests"}, wantErr: "expects no arguments"},
			{name: "unknown flag", args: []string{"--all"}, wantErr: "unknown flag: --all"},
		})
	})
	t.Run("show", func(t *testing.T) {
		testFlags(t, newSkillShowCmd, func(o *skillShowOptions) { o.app = nil }, []flagCase[skillShowOptions]{
			{name: "name", args: []string{"flaky-tests"}, want: skillShowOptions{name: "flaky-tests"}},
			{name: "json", args: []string{"--json", "flaky-tests"}, want: skillShowOptions{name: "flaky-tests", json: true}},
			{name: "no name", wantErr: "expects a skill NAME"},
			{name: "bad json value", args: []string{"a", "--json=maybe"}, wantErr: `invalid argument "maybe"`},
			{name: "unknown flag", args: []string{"a", "-v"}, wantErr: "unknown shorthand flag: 'v'"},
		})
	})
	t.Run("rm", func(t *testing.T) {
		testFlags(t, newSkillRmCmd, func(o *skillRmOptions) { o.app = nil }, []flagCase[skillRmOptions]{
			{name: "name", args: []string{"flaky-tests"}, want: skillRmOptions{name: "flaky-tests"}},
			{name: "json", args: []string{"flaky-tests", "--json"}, want: skillRmOptions{name: "flaky-tests", json: true}},
			{name: "no name", wantErr: "expects a skill NAME"},
			{name: "two names", args: []string{"a", "b"}, wantErr: "expects a skill NAME"},
			{name: "unknown flag", args: []string{"a", "--force"}, wantErr: "unknown flag: --force"},
		})
	})
	t.Run("mv", func(t *testing.T) {
		testFlags(t, newSkillMvCmd, func(o *skillMvOptions) { o.app = nil }, []flagCase[skillMvOptions]{
			{name: "old and new", args: []string{"flaky", "flaky-tests"}, want: skillMvOptions{from: "flaky", to: "flaky-tests"}},
			{name: "json", args: []string{"--json", "a", "b"}, want: skillMvOptions{from: "a", to: "b", json: true}},
			{name: "one name", args: []string{"a"}, wantErr: "expects the skill's OLD and NEW names"},
			{name: "three names", args: []string{"a", "b", "c"}, wantErr: "expects the skill's OLD and NEW names"},
		})
	})
	t.Run("import", func(t *testing.T) {
		testFlags(t, newSkillImportCmd, func(o *skillImportOptions) { o.app = nil }, []flagCase[skillImportOptions]{
			{name: "one path", args: []string{"~/skills/pdf"}, want: skillImportOptions{sources: []string{"~/skills/pdf"}}},
			{name: "paths and json", args: []string{"a", "b", "--json"}, want: skillImportOptions{sources: []string{"a", "b"}, json: true}},
			{name: "no path", wantErr: "expects at least one PATH"},
			{name: "unknown flag", args: []string{"a", "--into", "x"}, wantErr: "unknown flag: --into"},
			{name: "allow rules", args: []string{"a", "--allow", "bidi-char", "--allow", "raw-ip"}, want: skillImportOptions{sources: []string{"a"}, allow: []string{"bidi-char", "raw-ip"}}},
			{name: "allow a typo", args: []string{"a", "--allow", "bidi"}, wantErr: `--allow "bidi": not an audit rule`},
		})
	})
}
