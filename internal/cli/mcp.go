package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/mcpserver"
	"github.com/spf13/cobra"
)

type mcpOptions struct {
	app *app
}

// newMCPCmd parses `megagit mcp` into options and hands them to runF, or
// to mcpRun when runF is nil (tests pass a stub).
func newMCPCmd(a *app, runF func(*mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{app: a}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the registry's skills to an agent over MCP on stdin and stdout",
		Long: "mcp is a Model Context Protocol server on stdin and stdout, for agents that call tools.\n" +
			"An agent starts it (register it with `megagit hook install --mcp`); it logs on stderr.\n\n" +
			"Tools:\n" +
			"  search_skills {query, k?}    the skills worth reading for a task, ranked as the prompt\n" +
			"                               hook ranks them (name, description, score, path), or\n" +
			"                               \"Nothing fits\"\n" +
			"  get_skill {name}             a skill's SKILL.md body (at most 32 KiB) and path\n" +
			"  list_skills {status?}        names, descriptions and status (active, suspect, archived)\n" +
			"  record_verdict {name, verdict, reason?}\n" +
			"                               HELPFUL, HARMFUL or NEUTRAL as one commit, as `megagit\n" +
			"                               verdict` does; only for a skill search_skills or get_skill\n" +
			"                               returned in this session",
		Example: examples(
			"megagit mcp", "serve on stdin and stdout (an agent starts it)",
			"megagit -C ~/team-skills mcp", "another registry's skills",
		),
		Args: exactArgs(0, "no arguments (the protocol comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return mcpRun(cmd.Context(), opts)
		},
	}
	return cmd
}

// mcpRun serves the registry around the working directory on the app's
// stdin and stdout until the client closes them.
func mcpRun(ctx context.Context, opts *mcpOptions) error {
	a := opts.app
	cwd, _ := os.Getwd()
	s, err := mcpserver.New(mcpserver.Options{Dir: a.workDir(), Project: hook.ProjectWords(cwd), Version: buildVersion().Version, Now: a.now, Log: a.errOut})
	if errors.Is(err, local.ErrNotRegistry) {
		return notRegistry(a, err)
	}
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return s.Run(ctx, &mcpserver.StdioTransport{In: a.in, Out: a.out, Log: func(err error) { fmt.Fprintf(a.errOut, "megagit mcp: %v\n", err) }})
}
