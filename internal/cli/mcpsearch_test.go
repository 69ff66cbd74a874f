package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/megagit/megagit/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMCP is `mcp TOOL KEY=VALUE...`: it starts `megagit mcp` in the
// script's folder, as an agent would, calls one tool with the arguments
// given and prints the tool's text on stdout (an error result on stderr,
// which fails unless negated), and what the server logged on stderr.
func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: mcp TOOL [KEY=VALUE...]")
	}
	tool := map[string]string{"search": mcpserver.ToolSearch, "get": mcpserver.ToolGet, "list": mcpserver.ToolList}[args[0]]
	if tool == "" {
		tool = args[0]
	}
	in := map[string]any{}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("mcp: %q is not KEY=VALUE", a)
		}
		in[k] = v
	}
	exe, err := exec.LookPath("megagit")
	ts.Check(err)
	cmd := exec.Command(exe, "mcp")
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "GIT_CONFIG_NOSYSTEM", "MEGAGIT_HOOK_DEADLINE_MS", "MEGAGIT_ONNXRUNTIME_LIB"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var logged bytes.Buffer
	cmd.Stderr = &logged
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "script", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	ts.Check(err)
	defer func() { fmt.Fprint(ts.Stderr(), logged.String()) }() // once the server is gone
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: in})
	ts.Check(err)
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		fmt.Fprint(ts.Stderr(), text.String())
		if !neg {
			ts.Fatalf("mcp %s: error result", tool)
		}
		return
	}
	fmt.Fprint(ts.Stdout(), text.String())
	if neg {
		ts.Fatalf("mcp %s: unexpected success", tool)
	}
}
