package cli

import "testing"

func TestTuneFlags(t *testing.T) {
	testFlags(t, newTuneCmd, func(o *tuneOptions) { o.app = nil }, []flagCase[tuneOptions]{
		{name: "no flags", args: nil, want: tuneOptions{nullShare: 0.4}},
		{name: "apply", args: []string{"--apply"}, want: tuneOptions{apply: true, nullShare: 0.4}},
		{name: "json", args: []string{"--json", "--apply"}, want: tuneOptions{apply: true, json: true, nullShare: 0.4}},
		{name: "gate", args: []string{"--gate", "g.json", "--null-share", "0.3"}, want: tuneOptions{gate: "g.json", nullShare: 0.3}},
		{name: "gate and apply", args: []string{"--gate", "g.json", "--apply"}, wantErr: "cannot be combined with --apply"},
		{name: "bad null share", args: []string{"--gate", "g.json", "--null-share", "0"}, wantErr: "--null-share"},
		{name: "an argument", args: []string{"now"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--dry-run"}, wantErr: "unknown flag: --dry-run"},
	})
}
