package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestInitFlags(t *testing.T) {
	noApp := func(o *initOptions) { o.app = nil }
	t.Run("here", func(t *testing.T) {
		testFlags(t, newInitCmd, noApp, []flagCase[initOptions]{
			{name: "no DIR", want: initOptions{dir: ".", layout: "auto"}},
			{name: "DIR", args: []string{"reg"}, want: initOptions{dir: "reg", layout: "auto", named: true}},
			{name: "here", args: []string{"--here", "reg"}, want: initOptions{dir: "reg", layout: "auto", named: true, here: true}},
			{name: "json", args: []string{"reg", "--json"}, want: initOptions{dir: "reg", json: true, layout: "auto", named: true}},
			{name: "layout ref", args: []string{"--layout", "ref"}, want: initOptions{dir: ".", layout: "ref"}},
			{name: "layout branch", args: []string{"--layout=branch", "reg"}, want: initOptions{dir: "reg", layout: "branch", named: true}},
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
			{name: "no DIR", want: initOptions{dir: "/srv", layout: "auto"}},
			{name: "relative DIR", args: []string{"reg"}, want: initOptions{dir: "/srv/reg", layout: "auto", named: true}},
			{name: "absolute DIR", args: []string{"/tmp/reg"}, want: initOptions{dir: "/tmp/reg", layout: "auto", named: true}},
		})
	})
}
