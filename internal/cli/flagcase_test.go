package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

// flagCase is one row of a flag-parsing table: the arguments, and either
// the options a command parses them into or the usage error it fails with.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// testFlags runs each case through parseOnly. noApp clears the *app every
// options struct carries, which the comparison leaves out.
func testFlags[O comparable](t *testing.T, build func(*app, func(*O) error) *cobra.Command, noApp func(*O), cases []flagCase[O]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseOnly(t, build, tc.args...)
			if tc.wantErr != "" {
				wantUsageError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			noApp(got)
			if *got != tc.want {
				t.Errorf("%q parsed to %+v, want %+v", tc.args, *got, tc.want)
			}
		})
	}
}
