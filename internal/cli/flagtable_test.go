package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

// flagCase is one row of a flag-parsing table: the arguments, and the
// options runF must receive or the usage error they must give.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// runFlagCases parses each case with parseOnly and compares the options,
// once noApp has cleared their app, with want.
func runFlagCases[O comparable](t *testing.T, build func(*app, func(*O) error) *cobra.Command, noApp func(*O), cases []flagCase[O]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOnly(t, build, tt.args...)
			if tt.wantErr != "" {
				wantUsageError(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			noApp(got)
			if *got != tt.want {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}
