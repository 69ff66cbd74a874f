package cli

import (
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/inject"
	"github.com/spf13/cobra"
)

type hookSessionStartOptions struct {
	app     *app
	agent   string
	userReg string
}

// newHookSessionStartCmd parses `megagit hook session-start` into options
// and hands them to runF, or to hookSessionStartRun when runF is nil.
func newHookSessionStartCmd(a *app, runF func(*hookSessionStartOptions) error) *cobra.Command {
	opts := &hookSessionStartOptions{app: a}
	cmd := &cobra.Command{
		Use:   "session-start --agent claude|codex|gemini|opencode|copilot",
		Short: "Run the SessionStart hook: ask the agent to report skills it uses",
		Long: `The SessionStart hook, run by the agent: the agent's event JSON on stdin,
the verdict-tag request for the session on stdout.`,
		Args: exactArgs(0, "no arguments (the event comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			hookSessionStartRun(opts)
			return nil // a hook never fails the agent
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, hook.AgentList())
	cmd.Flags().StringVar(&opts.userReg, "user-registry", "", "the user registry, as a user-scope install writes it: used where the agent's folder has no registry (in a project whose own settings run megagit's hook, this one prints nothing)")
	return cmd
}

// hookSessionStartRun runs the SessionStart hook (hook/inject) the way
// hookPromptRun runs the prompt hook: it reads the config and saves the
// resolved settings for megagit-hook.
func hookSessionStartRun(opts *hookSessionStartOptions) {
	a := opts.app
	_, _ = inject.SessionStart(inject.Options{
		Agent: opts.agent, Dir: a.dir, UserRegistry: opts.userReg, Version: version, Start: hookStart(),
		Now: a.now, In: a.in, Out: a.out, ErrOut: a.errOut,
		Open: openPromptEnv, Megagit: a.megagit,
	})
}
