package cli

import "testing"

func TestWhyFlags(t *testing.T) {
	testFlags(t, newWhyCmd, func(o *whyOptions) { o.app = nil }, []flagCase[whyOptions]{
		{name: "prompt and name", args: []string{"my docker build is slow", "docker-cache"},
			want: whyOptions{prompt: "my docker build is slow", skill: "docker-cache"}},
		{name: "json", args: []string{"p", "s", "--json"}, want: whyOptions{prompt: "p", skill: "s", json: true}},
		{name: "paths", args: []string{"p", "s", "--path", "a.go", "--path", "b.go"}, want: whyOptions{prompt: "p", skill: "s", paths: []string{"a.go", "b.go"}}},
		{name: "no name", args: []string{"p"}, wantErr: "expects a PROMPT and a skill NAME"},
		{name: "three arguments", args: []string{"p", "s", "x"}, wantErr: "expects a PROMPT and a skill NAME"},
		{name: "unknown flag", args: []string{"p", "s", "--top-k", "3"}, wantErr: "unknown flag: --top-k"},
	})
}
