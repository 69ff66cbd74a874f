package cli

import "testing"

func TestEvidenceFlags(t *testing.T) {
	t.Run("unarchive", func(t *testing.T) {
		testFlags(t, newUnarchiveCmd, func(o *unarchiveOptions) { o.app = nil }, []flagCase[unarchiveOptions]{
			{name: "name and reason", args: []string{"flaky-tests", "--reason", "fixed upstream"},
				want: unarchiveOptions{skill: "flaky-tests", reason: "fixed upstream"}},
			{name: "json", args: []string{"flaky-tests", "--reason", "r", "--json"}, want: unarchiveOptions{skill: "flaky-tests", reason: "r", json: true}},
			{name: "no name", args: []string{"--reason", "r"}, wantErr: "expects a skill NAME"},
			{name: "two names", args: []string{"a", "b"}, wantErr: "expects a skill NAME"},
			{name: "unknown flag", args: []string{"a", "--force"}, wantErr: "unknown flag: --force"},
		})
	})
	t.Run("revert", func(t *testing.T) {
		testFlags(t, newRevertCmd, func(o *revertOptions) { o.app = nil }, []flagCase[revertOptions]{
			{name: "ref", args: []string{"1a2b3c"}, want: revertOptions{ref: "1a2b3c"}},
			{name: "json", args: []string{"--json", "1a2b3c"}, want: revertOptions{ref: "1a2b3c", json: true}},
			{name: "no ref", wantErr: "expects a commit hash or verdict id"},
			{name: "two refs", args: []string{"a", "b"}, wantErr: "expects a commit hash or verdict id"},
			{name: "unknown flag", args: []string{"a", "--hard"}, wantErr: "unknown flag: --hard"},
		})
	})
	t.Run("resync", func(t *testing.T) {
		testFlags(t, newResyncCmd, func(o *resyncOptions) { o.app = nil }, []flagCase[resyncOptions]{
			{name: "every skill", want: resyncOptions{}},
			{name: "one skill", args: []string{"flaky-tests"}, want: resyncOptions{skill: "flaky-tests"}},
			{name: "json", args: []string{"--json"}, want: resyncOptions{json: true}},
			{name: "two skills", args: []string{"a", "b"}, wantErr: "takes at most one skill NAME"},
			{name: "unknown flag", args: []string{"--dry-run"}, wantErr: "unknown flag: --dry-run"},
		})
	})
}
