package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type hookPromptOptions struct {
	app     *app
	agent   string
	userReg string
}

// newHookPromptCmd parses `megagit hook prompt` into options and hands
// them to runF, or to hookPromptRun when runF is nil (tests pass a stub).
func newHookPromptCmd(a *app, runF func(*hookPromptOptions) error) *cobra.Command {
	opts := &hookPromptOptions{app: a}
	cmd := &cobra.Command{
		Use:   "prompt --agent claude|codex|gemini|opencode|copilot",
		Short: "Run the prompt hook: the skills for the agent's prompt on stdout",
		Long: `The prompt hook, run by the agent: the agent's event JSON on stdin, the
skills for this prompt on stdout.`,
		Example: examples(
			"megagit hook prompt --agent claude < event.json", "what Claude Code is given for the event",
			`echo '{"prompt": "fix the flaky test"}' | megagit hook prompt --agent gemini`, "what Gemini CLI is given",
		),
		Args: exactArgs(0, "no arguments (the event comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			hookPromptRun(opts)
			return nil // a hook never fails the agent
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, hook.AgentList())
	cmd.Flags().StringVar(&opts.userReg, "user-registry", "", "the user registry, as a user-scope install writes it: used where the agent's folder has no registry (in a project whose own settings run megagit's hook, this one prints nothing)")
	return cmd
}

// hookPromptRun runs the prompt hook (hook/inject) with everything this
// binary can do: it reads the config, rebuilds the compiled index when a
// skill changed and loads any model; and it saves the resolved settings
// for the megagit-hook binary, which then answers the next prompts alone.
func hookPromptRun(opts *hookPromptOptions) {
	a := opts.app
	_, _ = inject.Run(inject.Options{
		Agent: opts.agent, Dir: a.dir, UserRegistry: opts.userReg, Version: version, Start: hookStart(),
		Now: a.now, In: a.in, Out: a.out, ErrOut: a.errOut,
		Open: openPromptEnv, Megagit: a.megagit,
	})
}

// thisBinary is the megagit binary running, as it was started (by name on
// PATH, or a path), to refresh compiled indexes in another process.
func thisBinary() (string, error) {
	p, err := exec.LookPath(os.Args[0])
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// hookStart is when this hook call started: megagit-hook's start when it
// handed the prompt over within the last second, else now.
func hookStart() time.Time {
	start := time.Now()
	if ns, err := strconv.ParseInt(os.Getenv(inject.StartEnv), 10, 64); err == nil {
		if t := time.Unix(0, ns); t.Before(start) && start.Sub(t) < time.Second {
			return t
		}
	}
	return start
}

// openPromptEnv opens the registry and its config for the prompt hook and
// saves the resolved settings for megagit-hook.
func openPromptEnv(dir string) (*inject.Env, error) {
	w, err := workspace.OpenHook(dir)
	if w == nil {
		return nil, err
	}
	ie := &inject.Env{Root: w.Reg.Root(), Local: w.Reg.Local()}
	if err != nil {
		return ie, err
	}
	ie = w.PromptEnv()
	if err := inject.SaveSettings(ie.Local, ie.Root, version, config.EnvNames(), ie.Settings); err != nil {
		line := fmt.Sprintf("%s prompt: note: saving %s: %v", time.Now().UTC().Format(time.RFC3339), inject.SettingsFile, err)
		_ = ie.Local.Append(hook.LogFile, []byte(line), hook.LogMaxBytes)
	}
	return ie, nil
}
