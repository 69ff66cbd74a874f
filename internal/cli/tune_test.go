package cli

import "testing"

func TestTuneFlags(t *testing.T) {
	testFlags(t, newTuneCmd, func(o *tuneOptions) { o.app = nil }, []flagCase[tuneOptions]{
		{name: "no flags", args: nil, want: tuneOptions{}},
		{name: "apply", args: []string{"--apply"}, want: tuneOptions{apply: true}},
		{name: "json", args: []string{"--json", "--apply"}, want: tuneOptions{apply: true, json: true}},
		{name: "an argument", args: []string{"now"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--dry-run"}, wantErr: "unknown flag: --dry-run"},
	})
}
