package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/megagit/megagit/mcpserver"
	"github.com/megagit/megagit/registry/registrytest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPFlags(t *testing.T) {
	testFlags(t, newMCPCmd, func(o *mcpOptions) { o.app = nil }, []flagCase[mcpOptions]{
		{name: "none", args: nil, want: mcpOptions{}},
		{name: "an argument", args: []string{"stdio"}, wantErr: "expects no arguments (the protocol comes on stdin)"},
		{name: "unknown flag", args: []string{"--port", "8080"}, wantErr: "unknown flag: --port"},
	})
}

// TestMCPOverStdio runs `megagit mcp` as an agent does, as a child process
// on stdin and stdout, through the SDK's own client: the protocol is all
// that reaches stdout, and a verdict lands as a commit.
func TestMCPOverStdio(t *testing.T) {
	r := registrytest.New(t)
	if _, _, err := r.AddSkill("flaky-tests", "Find why tests pass locally but fail randomly in CI. Use when a test is flaky.", "# Flaky\n\nShuffle.\n"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.AddSkill("docker-slim", "Shrink Docker images with multi-stage builds.", ""); err != nil {
		t.Fatal(err)
	}
	exe, err := exec.LookPath("megagit") // the test binary, as TestMain put it on PATH
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(exe, "-C", r.Root(), "mcp")
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The server says the version `megagit version` prints.
	want, err := exec.Command(exe, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v versionInfo
	if err := json.Unmarshal(want, &v); err != nil || v.Version == "" {
		t.Fatalf("megagit version --json: %s (%v)", want, err)
	}
	if got := cs.InitializeResult().ServerInfo.Version; got != v.Version {
		t.Errorf("serverInfo.version %q, want %q as megagit version says", got, v.Version)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 4 {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolSearch, Arguments: map[string]any{"query": "the tests fail randomly in CI"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "flaky-tests") {
		t.Fatalf("search_skills: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolVerdict, Arguments: map[string]any{"name": "flaky-tests", "verdict": "HELPFUL"}})
	if err != nil || res.IsError {
		t.Fatalf("record_verdict: %+v, %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	logs, err := r.Log("flaky-tests", 1)
	if err != nil || len(logs) != 1 || logs[0].Verdict != "HELPFUL" {
		t.Errorf("registry log %+v (%v), want the HELPFUL verdict", logs, err)
	}
	if !strings.Contains(stderr.String(), "megagit mcp: serving "+r.Root()) {
		t.Errorf("stderr %q: no log line", stderr.String())
	}
}
