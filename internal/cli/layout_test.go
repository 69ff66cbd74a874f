package cli

import "testing"

func TestLayoutFlags(t *testing.T) {
	testFlags(t, newLayoutCmd, func(o *layoutOptions) { o.app = nil }, []flagCase[layoutOptions]{
		{name: "show", want: layoutOptions{}},
		{name: "ref", args: []string{"ref"}, want: layoutOptions{to: "ref"}},
		{name: "branch json", args: []string{"branch", "--json"}, want: layoutOptions{to: "branch", json: true}},
		{name: "two layouts", args: []string{"ref", "branch"}, wantErr: "takes at most ref or branch"},
		{name: "unknown flag", args: []string{"--force"}, wantErr: "unknown flag: --force"},
	})
}
