package cli

import "testing"

func TestRemoteFlags(t *testing.T) {
	testFlags(t, newRemoteListCmd, func(o *remoteListOptions) { o.app = nil }, []flagCase[remoteListOptions]{
		{name: "list"},
		{name: "list as JSON", args: []string{"--json"}, want: remoteListOptions{json: true}},
		{name: "not a subcommand", args: []string{"show"}, wantErr: `unknown command "show" for "remote"`},
	})
	testFlags(t, newRemoteAddCmd, func(o *remoteAddOptions) { o.app = nil }, []flagCase[remoteAddOptions]{
		{name: "add", args: []string{"origin", "https://example.com/team/skills.git"},
			want: remoteAddOptions{name: "origin", url: "https://example.com/team/skills.git"}},
		{name: "add without a URL", args: []string{"origin"}, wantErr: "expects a remote NAME and a URL"},
		{name: "add as JSON", args: []string{"origin", "u", "--json"}, want: remoteAddOptions{name: "origin", url: "u", json: true}},
		{name: "add: unknown flag", args: []string{"origin", "u", "--fetch"}, wantErr: "unknown flag: --fetch"},
	})
}
