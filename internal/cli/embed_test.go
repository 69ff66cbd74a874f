package cli

import (
	"reflect"
	"testing"

	"github.com/spf13/cobra"
)

// flagCase is one row of a flag-parsing table: args parse to want, or fail
// with a usage error containing wantErr.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// testFlags runs a flag-parsing table against one command; clear drops
// what the comparison ignores (the app, a context, functions).
func testFlags[O any](t *testing.T, build func(*app, func(*O) error) *cobra.Command, clear func(*O), cases []flagCase[O]) {
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
			clear(got)
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// Flag parsing only: the run itself is covered by embed.txtar.
func TestEmbedFlags(t *testing.T) {
	testFlags(t, newEmbedCmd, func(o *embedOptions) {
		if o.flags == nil {
			t.Error("embed did not keep its flags for the configuration")
		}
		o.app, o.flags = nil, nil
	}, []flagCase[embedOptions]{
		{name: "no flags", want: embedOptions{}},
		{name: "all, float16", args: []string{"--all", "--float16"}, want: embedOptions{all: true, float16: true}},
		{name: "an argument", args: []string{"extra"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: "unknown flag: --bogus"},
	})
}
