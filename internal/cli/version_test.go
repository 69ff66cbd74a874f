package cli

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	rev := "2ec955f1c0de0123456789abcdef0123456789ab"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name    string
		release string
		info    *debug.BuildInfo
		want    string
	}{
		{"release", "1.4.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "1.4.0 2ec955f1c0de"},
		{"release without vcs", "1.4.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "1.4.0"},
		{"go build in a clone", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("false")}, "(devel) 2ec955f1c0de"},
		{"go build with edits", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, "(devel) 2ec955f1c0de+dirty"},
		{"pseudo-version names its commit", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101000000-2ec955f1c0de+dirty"}, Settings: vcs("true")},
			"v0.0.0-20260101000000-2ec955f1c0de+dirty"},
		{"go install @version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{"no build info", "dev", nil, "(devel)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := resolveVersion(c.release, c.info).String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	v := resolveVersion("dev", &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")})
	if v.Commit != rev || !v.Modified || v.Go != "go1.99" {
		t.Errorf("got %+v, want the full commit, modified and the build's Go", v)
	}
	if v := resolveVersion("dev", nil); v.Go != runtime.Version() || v.Commit != "" {
		t.Errorf("no build info: got %+v", v)
	}
}

func TestVersionCommand(t *testing.T) {
	testFlags(t, newVersionCmd, func(o *versionOptions) { o.app = nil }, []flagCase[versionOptions]{
		{name: "text"},
		{name: "json", args: []string{"--json"}, want: versionOptions{json: true}},
		{name: "an argument", args: []string{"now"}, wantErr: "expects no arguments"},
	})
	want := "megagit " + buildVersion().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, out, _ := runArgs(args...); code != exitOK || out != want {
			t.Errorf("%q: exit %d, stdout %q; want %q", args, code, out, want)
		}
	}
	code, out, _ := runArgs("version", "--json")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil {
		t.Fatalf("version --json: exit %d, %v: %s", code, err, out)
	}
	for _, k := range []string{"version", "commit", "modified", "go"} {
		if _, ok := v[k]; !ok {
			t.Errorf("version --json lacks %q: %s", k, out)
		}
	}
	if !strings.HasPrefix(v["go"].(string), "go") {
		t.Errorf("go = %v", v["go"])
	}
}
