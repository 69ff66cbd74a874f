package cli

import "testing"

func TestRouteFlags(t *testing.T) {
	testFlags(t, newRouteCmd, func(o *routeOptions) {
		if o.flags == nil {
			t.Error("the options carry no flags: --top-k and friends could not override the config")
		}
		o.app, o.flags = nil, nil
	}, []flagCase[routeOptions]{
		{name: "prompt", args: []string{"my docker build is slow"},
			want: routeOptions{prompt: "my docker build is slow"}},
		{name: "every flag", args: []string{"p", "--top-k", "3", "--no-dynamic-k", "--format", "compose", "--budget", "900", "--json", "--no-serve", "--path", "src/a.go", "--path", "b,c.go"},
			want: routeOptions{prompt: "p", topK: 3, noDynamicK: true, format: "compose", budget: 900, json: true, noServe: true, paths: []string{"src/a.go", "b,c.go"}}},
		// --format is checked when routing, against the config's default.
		{name: "any format", args: []string{"p", "--format", "xml"}, want: routeOptions{prompt: "p", format: "xml"}},
		{name: "no prompt", args: nil, wantErr: "expects one PROMPT (quote it)"},
		{name: "two prompts", args: []string{"a", "b"}, wantErr: "expects one PROMPT (quote it)"},
		{name: "bad top-k", args: []string{"p", "--top-k", "many"}, wantErr: `invalid argument "many" for "--top-k"`},
		{name: "unknown flag", args: []string{"p", "--k", "3"}, wantErr: "unknown flag: --k"},
	})
}
