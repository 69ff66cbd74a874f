package cli

import "testing"

func TestDecisionsFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    decisionsOptions
		wantErr string
	}{
		{name: "defaults: the last 20", args: nil, want: decisionsOptions{n: 20}},
		{name: "all, as JSON", args: []string{"--json", "-n", "0"}, want: decisionsOptions{json: true}},
		{name: "long number flag", args: []string{"--number", "5"}, want: decisionsOptions{n: 5}},
		{name: "an argument", args: []string{"s1"}, wantErr: "expects no arguments"},
		{name: "not a number", args: []string{"-n", "many"}, wantErr: `invalid argument "many"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOnly(t, newDecisionsCmd, tt.args...)
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
