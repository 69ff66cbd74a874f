package inject

import (
	"errors"
	"fmt"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
)

// startState is what SessionStart learns while it runs: the registry's
// local folder, for the log, and stdin, for a caller that hands over.
type startState struct {
	dir   *local.Dir
	input []byte
}

// SessionStart is the SessionStart hook, run by both binaries with the
// prompt hook's Options: it gives the model the report instruction
// (hook.SessionInstruction) once per session, in the agent's SessionStart
// contract, and records that in the session memory, so the prompt
// injections that follow leave it out. Each SessionStart (a startup, and a
// resume, clear or compaction) gives it again. A compaction reported by an
// event that cannot add context (Gemini CLI's PreCompress, Codex's
// PostCompact) prints nothing and makes the next prompt injection carry
// the instruction instead. Like Run, any failure prints nothing and is
// logged, and it returns ErrStale, with stdin, when this process cannot
// read the registry's settings.
func SessionStart(opts Options) (stdin []byte, err error) {
	st := &startState{}
	defer func() {
		if p := recover(); p != nil {
			hook.Log(opts.ErrOut, st.dir, opts.Now(), opts.Agent, "session-start", fmt.Errorf("panic: %v", p))
			stdin, err = nil, nil
		}
	}()
	out, err := sessionStart(opts, st)
	switch {
	case errors.Is(err, ErrStale):
		return st.input, err
	case err != nil:
		hook.Log(opts.ErrOut, st.dir, opts.Now(), opts.Agent, "session-start", err)
	default:
		fmt.Fprint(opts.Out, out)
	}
	return nil, nil
}

// sessionStart records the event in the session memory and returns the
// agent's stdout.
func sessionStart(opts Options, st *startState) (string, error) {
	in, e, err := openEvent(opts, false, &st.input, func(e *Env) { st.dir = &e.Local })
	if err != nil {
		return "", err
	}
	logNotes(opts, e, "session-start")
	if e.Settings.Shadow {
		return "", nil // shadow mode injects nothing, so asks for nothing
	}
	if in.SessionID != "" {
		sess, err := hook.LoadSession(e.Local, in.SessionID)
		if err != nil {
			return "", err
		}
		sess.Agent = opts.Agent
		if in.Compaction() {
			sess.Compacted()
		} else {
			sess.Arm(in.StartSource())
		}
		if err := savePromptSession(e.Local, sess, opts.Now()); err != nil {
			return "", err
		}
	}
	if in.Compaction() {
		return "", nil
	}
	return hook.RenderEvent(hook.EventSessionStart, opts.Agent, e.Settings.Output, hook.Instruction(opts.Agent, hook.SessionInstruction))
}
