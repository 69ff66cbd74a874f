package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

// newHookCmd groups the agent hooks. `hook prompt` and `hook stop` are run
// by the agent and always exit 0 with nothing on stdout on failure; `hook
// install` and `hook uninstall` are run by people and report errors.
func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Agent hooks: inject skills on every prompt, learn from every session",
		Long: `Agent hooks (Claude Code, Codex CLI, Gemini CLI).

  megagit hook install [--agent A] [--scope project|user] [--dry-run]
  megagit hook prompt --agent A     (UserPromptSubmit / BeforeAgent: JSON on stdin)
  megagit hook stop --agent A       (Stop / SessionEnd / AfterAgent: JSON on stdin)
  megagit hook stop --agent claude --transcript FILE   (by hand, after a session)
  megagit hook uninstall [--agent A] [--scope project|user]

prompt and stop always exit 0 and print nothing on failure; the reason goes
to .megagit/local/hook.log (and stderr).`,
	}
	cmd.AddCommand(newHookPromptCmd(a), newHookStopCmd(a), newHookInstallCmd(a, false), newHookInstallCmd(a, true))
	return cmd
}

// Local files the hooks keep in .megagit/local/.
const (
	hookLogName      = "hook.log"
	decisionLogName  = "decisions.jsonl"
	sessionDir       = "sessions"
	hookLogMaxBytes  = 1 << 20
	decisionMaxBytes = 4 << 20 // about 10,000 decisions; the oldest half goes when full
)

// hookDir picks where a hook looks for the registry: -C when given (an
// install can pin a registry), else the agent's cwd, else the process's.
func hookDir(a *app, cwd string) string {
	switch {
	case a.dir != "":
		return a.dir
	case cwd != "":
		return cwd
	}
	return "."
}

// openHookEnv opens the registry and its config without printing anything:
// a hook's stdout belongs to the agent. When only the config is broken the
// registry is still returned so the error can be logged there.
func openHookEnv(dir string) (*env, error) {
	root, err := registry.Find(dir)
	if err != nil {
		return nil, err
	}
	cfg, _, cfgErr := config.Load(configFile(root), nil)
	opts := registry.Options{Warn: func(string) {}}
	if cfgErr == nil {
		opts.Roots, opts.LockTimeout = cfg.Roots, cfg.Lock.Timeout
	}
	reg, err := registry.Open(root, opts)
	if err != nil {
		return nil, err
	}
	return &env{reg: reg, cfg: cfg}, cfgErr
}

// hookLog records why a hook did nothing: in hook.log when a registry was
// found, and on stderr (agents show a hook's stderr only in debug views).
func hookLog(a *app, reg *registry.Registry, agent, verb string, err error) {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	line := fmt.Sprintf("%s %s %s: %s", a.now().UTC().Format(time.RFC3339), agent, verb, msg)
	fmt.Fprintf(a.errOut, "megagit: hook %s: %s\n", verb, msg)
	if reg != nil {
		if lerr := reg.AppendLocal(hookLogName, []byte(line), hookLogMaxBytes); lerr != nil {
			fmt.Fprintf(a.errOut, "megagit: hook log: %v\n", lerr)
		}
	}
}

// readHookInput reads stdin up to the protocol's cap; a terminal is not
// read (a person running `hook stop --transcript F` by hand).
func readHookInput(in io.Reader) ([]byte, error) {
	if f, ok := in.(*os.File); ok && isTTY(f) {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(in, hook.MaxInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > hook.MaxInput {
		return nil, fmt.Errorf("%w: stdin larger than %d bytes", hook.ErrBadInput, hook.MaxInput)
	}
	return data, nil
}

// sessionFile is a session's memory file name under .megagit/local/.
func sessionFile(id string) string { return sessionDir + "/" + hook.SanitizeID(id) + ".json" }

// loadSession reads a session's memory; missing or junk is a fresh one.
func loadSession(reg *registry.Registry, id string) (*hook.Session, error) {
	data, err := reg.ReadLocal(sessionFile(id))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return hook.ParseSession(id, data), nil
}

func saveSession(reg *registry.Registry, s *hook.Session, now time.Time) error {
	s.Updated = now.UTC().Format(time.RFC3339)
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	return reg.WriteLocal(sessionFile(s.ID), data)
}

func checkAgentFlag(agent string) error {
	if err := hook.CheckAgent(agent); err != nil {
		return usageError{fmt.Errorf("--agent: %w", err)}
	}
	return nil
}
