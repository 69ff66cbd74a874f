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
		{name: "add takes no --json", args: []string{"origin", "u", "--json"}, wantErr: "unknown flag: --json"},
	})
}
