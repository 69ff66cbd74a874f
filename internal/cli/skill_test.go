package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

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
	t.Run("install", func(t *testing.T) {
		testFlags(t, newSkillInstallCmd, func(o *skillInstallOptions) { o.app = nil }, []flagCase[skillInstallOptions]{
			{name: "source only", args: []string{"https://github.com/o/r"}, want: skillInstallOptions{source: "https://github.com/o/r", names: []string{}}},
			{name: "names", args: []string{"../r", "a", "b"}, want: skillInstallOptions{source: "../r", names: []string{"a", "b"}}},
			{name: "paths ref all json", args: []string{"u", "--path", "skills", "--path", "tools/x", "--ref", "v1", "--all", "--json", "--force"},
				want: skillInstallOptions{source: "u", names: []string{}, paths: []string{"skills", "tools/x"}, ref: "v1", all: true, json: true, force: true}},
			{name: "no source", wantErr: "expects a SOURCE"},
			{name: "names and all", args: []string{"u", "a", "--all"}, wantErr: "give skill NAMEs or --all, not both"},
		})
	})
	t.Run("update", func(t *testing.T) {
		testFlags(t, newSkillUpdateCmd, func(o *skillUpdateOptions) { o.app = nil }, []flagCase[skillUpdateOptions]{
			{name: "all installed", args: []string{}, want: skillUpdateOptions{names: []string{}}},
			{name: "names check json", args: []string{"a", "b", "--check", "--json"}, want: skillUpdateOptions{names: []string{"a", "b"}, check: true, json: true}},
			{name: "force", args: []string{"a", "--force"}, want: skillUpdateOptions{names: []string{"a"}, force: true}},
			{name: "check and force", args: []string{"--check", "--force"}, wantErr: "--check writes nothing"},
		})
	})
	t.Run("verify", func(t *testing.T) {
		testFlags(t, newSkillVerifyCmd, func(o *skillVerifyOptions) { o.app = nil }, []flagCase[skillVerifyOptions]{
			{name: "all installed", args: []string{}, want: skillVerifyOptions{names: []string{}}},
			{name: "names json", args: []string{"a", "b", "--json"}, want: skillVerifyOptions{names: []string{"a", "b"}, json: true}},
		})
	})
	t.Run("install pin", func(t *testing.T) {
		testFlags(t, newSkillInstallCmd, func(o *skillInstallOptions) { o.app = nil }, []flagCase[skillInstallOptions]{
			{name: "tag pin", args: []string{"acme/skills@v1", "x"}, want: skillInstallOptions{source: "acme/skills", ref: "v1", names: []string{"x"}}},
			{name: "pin and ref", args: []string{"acme/skills@v1", "--ref", "main"}, wantErr: "give one"},
		})
	})
}

func TestSkillSwitchFlags(t *testing.T) {
	for _, disable := range []bool{true, false} {
		build := func(a *app, f func(*skillSwitchOptions) error) *cobra.Command {
			return newSkillSwitchCmd(a, disable, f)
		}
		name := map[bool]string{true: "disable", false: "enable"}[disable]
		t.Run(name, func(t *testing.T) {
			testFlags(t, build, func(o *skillSwitchOptions) { o.app = nil }, []flagCase[skillSwitchOptions]{
				{name: "name and reason", args: []string{"flaky-tests", "--reason", "noisy"},
					want: skillSwitchOptions{disable: disable, name: "flaky-tests", reason: "noisy"}},
				{name: "json", args: []string{"flaky-tests", "--reason", "r", "--json"},
					want: skillSwitchOptions{disable: disable, name: "flaky-tests", reason: "r", json: true}},
				{name: "no name", args: []string{"--reason", "r"}, wantErr: "expects a skill NAME"},
				{name: "two names", args: []string{"a", "b"}, wantErr: "expects a skill NAME"},
				{name: "unknown flag", args: []string{"a", "--why", "r"}, wantErr: "unknown flag: --why"},
			})
		})
	}
}

func TestStatsFlags(t *testing.T) {
	testFlags(t, newStatsCmd, func(o *statsOptions) { o.app = nil }, []flagCase[statsOptions]{
		{name: "table", want: statsOptions{}},
		{name: "all", args: []string{"--since", "30d", "--skill", "flaky-tests", "--json", "--html", "r.html"},
			want: statsOptions{since: "30d", skill: "flaky-tests", json: true, html: "r.html"}},
		{name: "an argument", args: []string{"flaky-tests"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--until", "x"}, wantErr: "unknown flag: --until"},
	})
}

// TestSplitPin: SOURCE@REF pins, as gh skill reads it; a user in a URL
// or an scp-like address is no pin.
func TestSplitPin(t *testing.T) {
	for _, tc := range []struct{ in, src, ref string }{
		{"acme/skills@v1.2", "acme/skills", "v1.2"},
		{"https://github.com/acme/skills@0123abcd", "https://github.com/acme/skills", "0123abcd"},
		{"git@github.com:acme/skills@main", "git@github.com:acme/skills", "main"},
		{"../skills@v1", "../skills", "v1"},
		{"git@github.com:acme/skills", "git@github.com:acme/skills", ""},
		{"https://tok_ABC@host/repo", "https://tok_ABC@host/repo", ""},
		{"ssh://git@host/repo.git", "ssh://git@host/repo.git", ""},
		{"acme/skills@", "acme/skills@", ""},
		{"name@v1", "name@v1", ""},
	} {
		src, ref, ok := splitPin(tc.in)
		if src != tc.src || ref != tc.ref || ok != (tc.ref != "") {
			t.Errorf("splitPin(%q) = %q, %q, %v; want %q, %q", tc.in, src, ref, ok, tc.src, tc.ref)
		}
	}
}
