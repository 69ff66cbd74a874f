package cli

import "testing"

func TestTuneFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    tuneOptions
		wantErr string
	}{
		{name: "no flags", args: nil, want: tuneOptions{}},
		{name: "apply", args: []string{"--apply"}, want: tuneOptions{apply: true}},
		{name: "json", args: []string{"--json", "--apply"}, want: tuneOptions{apply: true, json: true}},
		{name: "an argument", args: []string{"now"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--dry-run"}, wantErr: "unknown flag: --dry-run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOnly(t, newTuneCmd, tt.args...)
			if tt.wantErr != "" {
				wantUsageError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.app = nil
			if *got != tt.want {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}
