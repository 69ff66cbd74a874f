package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestInitFlags(t *testing.T) {
	noApp := func(o *initOptions) { o.app = nil }
	t.Run("here", func(t *testing.T) {
		testFlags(t, newInitCmd, noApp, []flagCase[initOptions]{
			{name: "no DIR", want: initOptions{dir: "."}},
			{name: "DIR", args: []string{"reg"}, want: initOptions{dir: "reg"}},
			{name: "json", args: []string{"reg", "--json"}, want: initOptions{dir: "reg", json: true}},
			{name: "two DIRs", args: []string{"a", "b"}, wantErr: "takes at most one DIR"},
			{name: "unknown flag", args: []string{"--bare"}, wantErr: "unknown flag: --bare"},
		})
	})
	// With -C a relative DIR is taken below the -C folder.
	withC := func(a *app, runF func(*initOptions) error) *cobra.Command {
		a.dir = "/srv"
		return newInitCmd(a, runF)
	}
	t.Run("-C", func(t *testing.T) {
		testFlags(t, withC, noApp, []flagCase[initOptions]{
			{name: "no DIR", want: initOptions{dir: "/srv"}},
			{name: "relative DIR", args: []string{"reg"}, want: initOptions{dir: "/srv/reg"}},
			{name: "absolute DIR", args: []string{"/tmp/reg"}, want: initOptions{dir: "/tmp/reg"}},
		})
	})
}
