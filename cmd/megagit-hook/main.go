// Command megagit-hook is megagit's prompt and session-start hooks in a
// small binary:
//
//	megagit-hook [-C DIR] prompt --agent claude|codex|gemini|opencode|copilot [--user-registry DIR]
//	megagit-hook [-C DIR] session-start --agent claude|codex|gemini|opencode|copilot [--user-registry DIR]
//
// do what `megagit hook prompt` and `megagit hook session-start` do
// (hook/inject), and `megagit hook install` uses it when it sits next to
// megagit. It links neither git nor
// the config reader, so it starts in a third of megagit's time. It reads
// the settings the last `megagit hook prompt` resolved from the config
// and the compiled index of the skills; when either is missing or out of
// date (a skill or the config changed, another megagit version) it hands
// the prompt to `megagit hook prompt` (next to it, else on PATH), which
// answers and brings them up to date for the next prompt.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models/staticmodel"
)

// version is set at release time (-X main.version=...), like megagit's:
// the settings saved by one version are read only by the same version.
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = "usage: megagit-hook [-C DIR] prompt|session-start --agent claude|codex|gemini|opencode|copilot [--user-registry DIR] (the agent's event JSON on stdin)"

// run is the whole command. Like `megagit hook prompt` it exits 0 and
// prints nothing on stdout whatever goes wrong, except for a call no agent
// makes (bad arguments, --help, --version).
func run(args []string, in io.Reader, out, errOut io.Writer) int {
	start := time.Now()
	a, err := parseArgs(args)
	switch {
	case errors.Is(err, errHelp):
		fmt.Fprintln(out, usage)
		return 0
	case errors.Is(err, errVersion):
		fmt.Fprintln(out, "megagit-hook", version)
		return 0
	case err != nil:
		fmt.Fprintf(errOut, "megagit-hook: %v\n%s\n", err, usage)
		return 2
	}
	now := time.Now
	hookRun := inject.Run
	if a.verb == verbSessionStart {
		hookRun = inject.SessionStart
	}
	data, err := hookRun(inject.Options{
		Agent: a.agent, Dir: a.dir, UserRegistry: a.userReg, Version: version, Start: start, Now: now,
		In: in, Out: out, ErrOut: errOut, Open: open, Megagit: fullBinary,
	})
	if errors.Is(err, inject.ErrStale) {
		herr := handOver(a, data, start, out, errOut)
		switch {
		case herr != nil:
			hook.Log(errOut, registryOf(a, data), now(), a.agent, a.verb, herr)
		case errors.Is(err, inject.ErrOtherVersion):
			// Answered, but every prompt will be handed over: say why.
			hook.Log(errOut, registryOf(a, data), now(), a.agent, a.verb,
				fmt.Errorf("note: megagit-hook and megagit are different versions (%v), so every prompt goes through megagit, which is slower: install both from the same release", err))
		}
	}
	return 0
}

// registryOf is the local folder of the registry a hook call is for, or
// nil when there is none.
func registryOf(a cmdArgs, data []byte) *local.Dir {
	in, _ := hook.ParseInput(data, false)
	where, err := hook.Locate(a.dir, a.userReg, in.Cwd, a.agent)
	if err != nil {
		return nil
	}
	root, err := local.Find(where)
	if err != nil {
		return nil
	}
	d := local.Open(root, 0)
	return &d
}

type cmdArgs struct {
	dir, agent string
	userReg    string // --user-registry: a user-scope hook's
	verb       string // verbPrompt or verbSessionStart
}

// The hooks megagit-hook runs.
const (
	verbPrompt       = "prompt"
	verbSessionStart = "session-start"
)

var (
	errHelp    = errors.New("help")
	errVersion = errors.New("version")
)

// parseArgs reads [-C DIR] [hook] prompt|session-start [--agent A]
// [--user-registry DIR] (also -C=DIR, --agent=A and --user-registry=DIR), the arguments `megagit hook prompt` and `megagit
// hook session-start` take.
func parseArgs(args []string) (cmdArgs, error) {
	a := cmdArgs{agent: hook.AgentClaude}
	verb := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		value := func(name string) (string, error) {
			if v, ok := strings.CutPrefix(arg, name+"="); ok {
				return v, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch {
		case arg == "-h" || arg == "--help" || arg == "help":
			return a, errHelp
		case arg == "--version" || arg == "version":
			return a, errVersion
		case arg == "-C" || strings.HasPrefix(arg, "-C="):
			a.dir, err = value("-C")
		case arg == "--agent" || strings.HasPrefix(arg, "--agent="):
			a.agent, err = value("--agent")
		case arg == hook.UserRegistryFlag || strings.HasPrefix(arg, hook.UserRegistryFlag+"="):
			a.userReg, err = value(hook.UserRegistryFlag)
		case arg == "hook" && !verb:
		case (arg == verbPrompt || arg == verbSessionStart) && !verb:
			verb, a.verb = true, arg
		default:
			return a, fmt.Errorf("unexpected argument %q", arg)
		}
		if err != nil {
			return a, err
		}
	}
	if !verb {
		return a, errors.New("missing the prompt or session-start command")
	}
	return a, hook.CheckAgent(a.agent)
}

// open finds the registry and the settings megagit saved for it; ErrStale
// when there are none, they are out of date, or a write was interrupted
// (megagit then finishes or discards it first).
func open(dir string) (*inject.Env, error) {
	root, err := local.Find(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	ld := local.Open(root, 0)
	if _, err := os.Stat(filepath.Join(ld.Path(), local.JournalFile)); err == nil {
		return nil, fmt.Errorf("%w: a write was interrupted", inject.ErrStale)
	}
	s, err := inject.LoadSettings(ld, root, version)
	if err != nil {
		return nil, err
	}
	e := &inject.Env{Root: root, Local: local.Open(root, s.LockTimeout), Settings: s}
	if s.Model == inject.ModelONNX && s.FallbackID != "" {
		// The built-in model routes until the ONNX model's server answers.
		load := func() (*staticmodel.Model, error) { return staticmodel.BuiltinModel(s.FallbackID) }
		e.Prewarm = func() { go func() { _, _ = load() }() }
		e.Fallback = func() (func(string) ([]float32, error), string, error) {
			m, err := load()
			if err != nil {
				return nil, "", err
			}
			return func(text string) ([]float32, error) { return m.Embed(text), nil }, staticmodel.Key(m.ID(), m.Fingerprint()), nil
		}
	}
	if load := staticLoader(s); load != nil {
		e.Prewarm = func() { go func() { _, _ = load() }() }
		e.Query = func() (func(string) ([]float32, error), string, error) {
			m, err := load()
			if err != nil {
				return nil, "", err
			}
			return func(text string) ([]float32, error) { return m.Embed(text), nil }, staticmodel.Key(m.ID(), m.Fingerprint()), nil
		}
	}
	return e, nil
}

// staticLoader loads the static model the settings route with: a
// built-in one by id, or a static model folder (once per process); nil
// for none.
func staticLoader(s *inject.Settings) func() (*staticmodel.Model, error) {
	switch {
	case s.Model == inject.ModelBuiltin:
		return func() (*staticmodel.Model, error) { return staticmodel.BuiltinModel(s.ModelID) }
	case s.Model == inject.ModelOther && s.ModelDir != "":
		return sync.OnceValues(func() (*staticmodel.Model, error) {
			return staticmodel.Load(os.DirFS(s.ModelDir), ".")
		})
	}
	return nil
}

// handOver runs `megagit hook prompt` (or session-start) on the event this process read:
// megagit next to this binary, else on PATH. Its output is the hook's.
func handOver(a cmdArgs, data []byte, start time.Time, out, errOut io.Writer) error {
	exe, err := fullBinary()
	if err != nil {
		return err
	}
	var args []string
	if a.dir != "" {
		args = append(args, "-C", a.dir)
	}
	args = append(args, "hook", a.verb, "--agent", a.agent)
	if a.userReg != "" {
		args = append(args, hook.UserRegistryFlag, a.userReg)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.Env = append(os.Environ(), inject.StartEnv+"="+strconv.FormatInt(start.UnixNano(), 10))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("handing the %s event to %s: %w", a.verb, exe, err)
	}
	return nil
}

// fullBinary is the megagit binary next to this one, else megagit on PATH.
func fullBinary() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), "megagit")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath("megagit")
	if err != nil {
		return "", fmt.Errorf("megagit is needed to bring the hook's settings up to date, and it is neither next to megagit-hook nor on PATH: %w", err)
	}
	return p, nil
}
