package cli

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/spf13/cobra"
)

type hookPromptOptions struct {
	app   *app
	agent string
}

// newHookPromptCmd parses `megagit hook prompt` into options and hands
// them to runF, or to hookPromptRun when runF is nil (tests pass a stub).
func newHookPromptCmd(a *app, runF func(*hookPromptOptions) error) *cobra.Command {
	opts := &hookPromptOptions{app: a}
	cmd := &cobra.Command{
		Use:   "prompt --agent claude|codex|gemini",
		Short: "Prompt hook: the agent's event JSON on stdin, the skills for this prompt on stdout",
		Args:  exactArgs(0, "no arguments (the event comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			hookPromptRun(opts)
			return nil // a hook never fails the agent
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, "claude, codex or gemini")
	return cmd
}

// hookPromptRun runs the prompt hook (hook/inject) with everything this
// binary can do: it reads the config, rebuilds the compiled index when a
// skill changed and loads any model; and it saves the resolved settings
// for the megagit-hook binary, which then answers the next prompts alone.
func hookPromptRun(opts *hookPromptOptions) {
	a := opts.app
	_, _ = inject.Run(inject.Options{
		Agent: opts.agent, Dir: a.dir, Version: version, Start: hookStart(),
		Now: a.now, In: a.in, Out: a.out, ErrOut: a.errOut,
		Open: openPromptEnv,
	})
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
	e, err := openHookEnv(dir)
	if e == nil {
		return nil, err
	}
	ie := &inject.Env{Root: e.reg.Root(), Local: e.reg.Local()}
	if err != nil {
		return ie, err
	}
	ie = promptEnv(e)
	if err := inject.SaveSettings(ie.Local, ie.Root, version, config.EnvNames(), ie.Settings); err != nil {
		line := fmt.Sprintf("%s prompt: note: saving %s: %v", time.Now().UTC().Format(time.RFC3339), inject.SettingsFile, err)
		_ = ie.Local.Append(hook.LogFile, []byte(line), hook.LogMaxBytes)
	}
	return ie, nil
}

// promptEnv is the prompt hook's view of an opened registry.
func promptEnv(e *env) *inject.Env {
	return &inject.Env{
		Root: e.reg.Root(), Local: e.reg.Local(), Settings: hookSettings(e.cfg, e.reg.Root()),
		Docs: func() ([]ranker.Doc, error) {
			skills, _, err := e.reg.Skills()
			if err != nil {
				return nil, err
			}
			ledgers, err := e.reg.Ledgers()
			if err != nil {
				return nil, err
			}
			return skillDocs(skills, ledgers), nil
		},
		Prewarm: prewarmModel,
		Semantic: func(model string, docs []ranker.Doc) route.Dense {
			return denseOf(e.semanticFor(&app{errOut: discard{}}, docs))
		},
	}
}

// hookSettings resolves what the prompt hook needs from the config.
func hookSettings(cfg *config.Config, root string) *inject.Settings {
	s := &inject.Settings{
		Deadline: cfg.Hook.Deadline, Shadow: cfg.Hook.Shadow, Output: cfg.Hook.Output, LogPrompts: cfg.Hook.LogPrompts,
		Route:       route.Settings{TopK: cfg.Route.TopK, NoDynamic: !cfg.Route.Dynamic, Format: cfg.Route.Format, Budget: cfg.Route.Budget},
		Roots:       cfg.Roots,
		LockTimeout: cfg.Lock.Timeout,
		Ranker:      rankerConfig(cfg),
		DynamicK:    dkOverride(cfg.DynamicK),
		ServeKey:    serveKey(cfg),
	}
	switch id := cfg.Model.ID; {
	case dense.UsesONNX(cfg, root):
		s.Model = inject.ModelONNX
	case cfg.Model.Dir != "":
		s.Model = inject.ModelOther
	case id == "" || id == "none" || id == "lexical":
		s.Model = inject.ModelNone
	case id == embedcache.BuiltinID:
		s.Model = inject.ModelBuiltin
	default:
		s.Model = inject.ModelOther // megagit warns and routes lexically
	}
	return s
}

// prewarmModel starts loading a static model (the tokenizer and, for the
// built-in model, its table) on another core while the prompt hook reads
// the compiled index: both load once per process, so semanticFor then
// waits for this load instead of starting its own.
func prewarmModel(model string) {
	load := func(f func()) {
		go func() {
			// A panic must not crash the hook (it always exits 0): the
			// worker then meets the failed load and logs it.
			defer func() { _ = recover() }()
			f()
		}()
	}
	switch model {
	case inject.ModelBuiltin:
		load(func() { _, _ = embedcache.Builtin() })
	case inject.ModelOther:
		load(func() { _, _ = embedcache.DefaultTokenizer() })
	}
}
