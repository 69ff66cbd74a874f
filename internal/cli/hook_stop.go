package cli

import (
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/stop"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type hookStopOptions struct {
	app        *app
	agent      string
	transcript string
	session    string
	final      bool
	userReg    string
}

// newHookStopCmd parses `megagit hook stop` into options and hands them
// to runF, or to hookStopRun when runF is nil (tests pass a stub).
func newHookStopCmd(a *app, runF func(*hookStopOptions) error) *cobra.Command {
	opts := &hookStopOptions{app: a}
	cmd := &cobra.Command{
		Use:   "stop --agent claude|codex|gemini|opencode|copilot [--transcript FILE]",
		Short: "Run the Stop hook: turn the session's skill reports into verdicts",
		Long: `The Stop hook, run by the agent: it turns the session's <skill-used/> tags
and outcomes into verdicts, in one commit.`,
		Args: exactArgs(0, "no arguments (the event comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			hookStopRun(opts)
			return nil // a hook never fails the agent
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, hook.AgentList())
	cmd.Flags().StringVar(&opts.userReg, "user-registry", "", "the user registry, as a user-scope install writes it: used where the agent's folder has no registry (in a project whose own settings run megagit's hook, this one prints nothing)")
	cmd.Flags().StringVar(&opts.transcript, "transcript", "", "read this Claude Code transcript (JSONL) instead of the event's transcript_path; settles pending outcomes")
	cmd.Flags().StringVar(&opts.session, "session", "", "session id (default: the event's, or the transcript file's name)")
	cmd.Flags().BoolVar(&opts.final, "final", false, "the session is over: settle every pending implicit outcome")
	return cmd
}

// hookStopRun runs the stop hook (hook/stop) on the registry opened with
// its config; a bad setting is logged and set aside (workspace.OpenHook).
func hookStopRun(opts *hookStopOptions) {
	a := opts.app
	var ws *workspace.Workspace
	stop.Run(stop.Options{
		Agent: opts.agent, Dir: a.dir, UserRegistry: opts.userReg, Transcript: opts.transcript, Session: opts.session, Final: opts.final,
		Now: a.now, In: a.in, ErrOut: a.errOut,
		Open: func(dir string) (*registry.Registry, error) {
			e, err := workspace.OpenHook(dir)
			if e == nil {
				return nil, err
			}
			ws = e
			ld := e.Reg.Local()
			for _, p := range e.Problems { // set aside: the hook goes on
				hook.Log(a.errOut, &ld, a.now(), opts.agent, "stop", p)
			}
			return e.Reg, err
		},
		Store: func(*registry.Registry) stop.Store { return ws.VerdictStore() },
	})
}
