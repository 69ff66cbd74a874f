package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/megagit/megagit/registry/regsync"
	"github.com/spf13/cobra"
)

func TestSyncFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    syncOptions
		wantErr bool
	}{
		{nil, syncOptions{}, false},
		{[]string{"--remote", "up", "--dry-run"}, syncOptions{remote: "up", dryRun: true}, false},
		{[]string{"--json", "--all"}, syncOptions{json: true, all: true}, false},
		{[]string{"origin"}, syncOptions{}, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := newSyncCmd(&app{})
			cmd.RunE = func(c *cobra.Command, args []string) error { return nil }
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			o := syncOptions{}
			o.remote, _ = cmd.Flags().GetString("remote")
			o.dryRun, _ = cmd.Flags().GetBool("dry-run")
			o.json, _ = cmd.Flags().GetBool("json")
			o.all, _ = cmd.Flags().GetBool("all")
			if o != tt.want {
				t.Fatalf("got %+v, want %+v", o, tt.want)
			}
		})
	}
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
