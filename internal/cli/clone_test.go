package cli

import "testing"

func TestCloneFlags(t *testing.T) {
	testFlags(t, newCloneCmd, func(o *cloneOptions) { o.app = nil }, []flagCase[cloneOptions]{
		{name: "url", args: []string{"git@host:team/skills.git"}, want: cloneOptions{url: "git@host:team/skills.git"}},
		{name: "url and dir", args: []string{"file:///srv/skills.git", "mine"}, want: cloneOptions{url: "file:///srv/skills.git", dir: "mine"}},
		{name: "json", args: []string{"--json", "u"}, want: cloneOptions{url: "u", json: true}},
		{name: "no url", wantErr: "expects a URL and an optional DIR"},
		{name: "three arguments", args: []string{"u", "d", "x"}, wantErr: "expects a URL and an optional DIR"},
		{name: "unknown flag", args: []string{"u", "--depth", "1"}, wantErr: "unknown flag: --depth"},
	})
}
