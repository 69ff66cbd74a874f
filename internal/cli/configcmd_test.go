package cli

import "testing"

func TestConfigFlags(t *testing.T) {
	testFlags(t, newConfigCmd, func(o *configOptions) { o.app = nil }, []flagCase[configOptions]{
		{name: "table", want: configOptions{}},
		{name: "json", args: []string{"--json"}, want: configOptions{json: true}},
		{name: "a key", args: []string{"router.k"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--global"}, wantErr: "unknown flag: --global"},
	})
}
