package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/megagit/megagit/registry/regsync"
)

func TestSyncFlags(t *testing.T) {
	testFlags(t, newSyncCmd, func(o *syncOptions) { o.app = nil }, []flagCase[syncOptions]{
		{name: "defaults"},
		{name: "remote and dry run", args: []string{"--remote", "up", "--dry-run"}, want: syncOptions{remote: "up", dryRun: true}},
		{name: "json and all", args: []string{"--json", "--all"}, want: syncOptions{json: true, all: true}},
		{name: "allow unrelated", args: []string{"--allow-unrelated"}, want: syncOptions{allowUnrelated: true}},
		{name: "an argument", args: []string{"origin"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--force"}, wantErr: "unknown flag: --force"},
	})
}

func TestPrintSyncReport(t *testing.T) {
	res := &regsync.Result{Remote: "origin", Branch: "main", Action: regsync.SyncMerge, Pushed: true, After: "0123456789abcdef",
		Skills: []regsync.SkillSync{
			{Skill: "a", Status: regsync.SyncUnchanged},
			{Skill: "b", Status: regsync.SyncUpdated, Received: 2, Sent: 1},
			{Skill: "c", Status: regsync.SyncNew},
		}}
	tests := []struct {
		name     string
		all      bool
		want     string
		wantNot  string
		wantInfo string
	}{
		{"changed only", false, "b\tupdated\t2\t1\nc\tnew\t0\t0\n", "a\tunchanged", "1 new, 1 updated, 1 unchanged, 0 conflict; pushed 0123456789ab"},
		{"all", true, "a\tunchanged\t0\t0\n", "", "merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			opts := &syncOptions{app: &app{out: &out, errOut: &errOut}, all: tt.all}
			if err := printSyncReport(opts, res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) || (tt.wantNot != "" && strings.Contains(out.String(), tt.wantNot)) {
				t.Fatalf("stdout:\n%s", out.String())
			}
			if !strings.Contains(errOut.String(), tt.wantInfo) {
				t.Fatalf("stderr: %s", errOut.String())
			}
		})
	}
}
