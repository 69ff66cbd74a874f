package cli

import "testing"

func TestDecisionsFlags(t *testing.T) {
	testFlags(t, newDecisionsCmd, func(o *decisionsOptions) { o.app = nil }, []flagCase[decisionsOptions]{
		{name: "defaults: the last 20", args: nil, want: decisionsOptions{n: 20}},
		{name: "all, as JSON", args: []string{"--json", "-n", "0"}, want: decisionsOptions{json: true}},
		{name: "long number flag", args: []string{"--number", "5"}, want: decisionsOptions{n: 5}},
		{name: "an argument", args: []string{"s1"}, wantErr: "expects no arguments"},
		{name: "not a number", args: []string{"-n", "many"}, wantErr: `invalid argument "many"`},
	})
}
