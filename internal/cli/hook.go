package cli

import (
	"fmt"

	"github.com/megagit/megagit/hook"
	"github.com/spf13/cobra"
)

// newHookCmd groups the agent hooks. `hook session-start`, `hook prompt`
// and `hook stop` are run by the agent and always exit 0 with nothing on stdout on failure; `hook
// install` and `hook uninstall` are run by people and report errors.
func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Install and run the agents' hooks: inject skills, record verdicts",
		Long: `Agent hooks (Claude Code, Codex CLI, Gemini CLI, opencode, GitHub Copilot CLI).

  megagit hook install [--agent A] [--scope project|user] [--dry-run]
  megagit hook session-start --agent A   (SessionStart: JSON on stdin)
  megagit hook prompt --agent A          (UserPromptSubmit / BeforeAgent: JSON on stdin)
  megagit hook stop --agent A            (Stop / SessionEnd / AfterAgent: JSON on stdin)
  megagit hook stop --agent claude --transcript FILE   (by hand, after a session)
  megagit hook uninstall [--agent A] [--scope project|user]

session-start, prompt and stop always exit 0 and print nothing on failure;
the reason goes to .megagit/local/hook.log (and stderr).`,
		Example: examples(
			"megagit hook install", "Claude Code's hooks, in this project's settings",
			"megagit hook install --scope user", "your personal skills, in every project",
			"megagit hook uninstall --dry-run", "what uninstall would change",
		),
	}
	cmd.AddCommand(newHookSessionStartCmd(a, nil), newHookPromptCmd(a, nil), newHookStopCmd(a, nil), newHookInstallCmd(a, nil), newHookUninstallCmd(a, nil))
	return cmd
}

func checkAgentFlag(agent string) error {
	if err := hook.CheckAgent(agent); err != nil {
		return usageError{fmt.Errorf("--agent: %w", err)}
	}
	return nil
}
