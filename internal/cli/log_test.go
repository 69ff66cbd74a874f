package cli

import "testing"

func TestLogFlags(t *testing.T) {
	testFlags(t, newLogCmd, func(o *logOptions) { o.app = nil }, []flagCase[logOptions]{
		{name: "every skill", want: logOptions{}},
		{name: "one skill", args: []string{"flaky-tests"}, want: logOptions{skill: "flaky-tests"}},
		{name: "-n", args: []string{"flaky-tests", "-n", "3"}, want: logOptions{skill: "flaky-tests", limit: 3}},
		{name: "max-count and json", args: []string{"--max-count", "5", "--json"}, want: logOptions{limit: 5, json: true}},
		{name: "two skills", args: []string{"a", "b"}, wantErr: "takes at most one skill NAME"},
		{name: "count not a number", args: []string{"-n", "three"}, wantErr: `invalid argument "three"`},
		{name: "unknown flag", args: []string{"--oneline"}, wantErr: "unknown flag: --oneline"},
	})
}
