package cli

import (
	"reflect"
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

// testFlags runs each case through parseOnly. clear drops what the
// comparison leaves out: the *app every options struct carries, a context,
// functions.
func testFlags[O any](t *testing.T, build func(*app, func(*O) error) *cobra.Command, clear func(*O), cases []flagCase[O]) {
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
			clear(got)
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("%q parsed to %+v, want %+v", tc.args, *got, tc.want)
			}
		})
	}
}
