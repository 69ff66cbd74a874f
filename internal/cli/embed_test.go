package cli

import (
	"testing"
)

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
		{name: "json", args: []string{"--json"}, want: embedOptions{json: true}},
		{name: "an argument", args: []string{"extra"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: "unknown flag: --bogus"},
	})
}
