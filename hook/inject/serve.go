package inject

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/serve"
)

// The prompt hook starts the registry's `megagit serve` itself when the
// model needs one (an ONNX model: loading it costs more than a prompt may
// wait) and none answered. One server per registry: the server holds
// serve.Lock for its whole life, and the hook that finds the lock
// free takes it and hands it to the server it starts, so of many prompts
// at once exactly one starts a server, and no window opens between the
// hook's check and the server's lock.

// ServeArgs are the arguments after the megagit binary that start the
// server of the registry at root, holding the serve lock on fd 3 and
// stopping after idle without a request.
func ServeArgs(root string, idle time.Duration) []string {
	return []string{"-C", root, "serve", "--idle", idle.String(), "--lock-fd", strconv.Itoa(serveLockFD)}
}

// serveLockFD is where the server finds the serve lock the hook hands it:
// the first of exec.Cmd.ExtraFiles.
const serveLockFD = 3

// ensureServer is called when the registry's model needs `megagit serve`
// and none answered (served is why): it starts one unless hook.serve is
// off, one is starting or running (the lock is held), or the last could
// not start and nothing it depends on changed since (then not before
// serve.RetryAfter). It returns what happened, for the log line that
// says the prompt was routed without the server.
func ensureServer(opts Options, e *Env, served error) string {
	s := e.Settings
	if s.Serve == "off" {
		return "hook.serve is off: start it with `megagit serve`"
	}
	if errors.Is(served, serve.ErrServerStops) {
		// It declined and stops: whether its lock is free yet is a race,
		// so the next prompt, not this one, starts the server that answers.
		return fmt.Sprintf("megagit serve runs but did not answer: %v; it stops, and the next prompt starts one that answers", served)
	}
	lock, err := e.Local.TryAcquireFile(serve.Lock)
	if err != nil {
		return fmt.Sprintf("cannot tell whether a megagit serve runs: %v", err)
	}
	if lock == nil {
		info := e.Local.FileLockState(serve.Lock)
		if st, ok := serve.ReadState(e.Local); ok && st.State == serve.Starting {
			return fmt.Sprintf("megagit serve (pid %d) is starting (%s)", info.PID, logName(e))
		}
		return fmt.Sprintf("megagit serve (pid %d) runs but did not answer: %v", info.PID, served)
	}
	handed := false
	defer func() {
		if handed {
			lock.Close() // the server holds it now
		} else {
			lock.Release()
		}
	}()
	now := opts.Now()
	stamp := serve.Stamp(s.ServeFiles)
	if st, ok := serve.ReadState(e.Local); ok && (st.State == serve.Starting || st.State == serve.Failed) {
		// The last server could not start: it said why (failed), or it
		// died loading (starting, with the lock free).
		at, err := time.Parse(time.RFC3339, st.Time)
		since := now.Sub(at)
		if err == nil && st.Stamp == stamp && since >= 0 && since < serve.RetryAfter {
			why := st.Error
			if why == "" {
				why = fmt.Sprintf("megagit serve (pid %d) exited while loading, before it answered", st.PID)
			}
			return fmt.Sprintf("megagit serve could not start at %s: %s (%s has more); it is started again once the model, ONNX Runtime or the config changes, or from %s",
				st.Time, why, logName(e), at.Add(serve.RetryAfter).UTC().Format(time.RFC3339))
		}
	}
	exe, err := megagit(opts)
	if err != nil {
		return fmt.Sprintf("cannot start megagit serve: %v", err)
	}
	// The state is written before the server starts, under the lock: the
	// server then writes its own (its pid, then serving or failed).
	st := serve.State{State: serve.Starting, Time: now.UTC().Format(time.RFC3339), Stamp: stamp, Auto: true}
	if err := serve.WriteState(e.Local, st); err != nil {
		return fmt.Sprintf("cannot start megagit serve: %v", err)
	}
	pid, err := startServer(exe, e, lock)
	if err != nil {
		st.State, st.Error = serve.Failed, err.Error()
		_ = serve.WriteState(e.Local, st)
		return fmt.Sprintf("cannot start megagit serve: %v", err)
	}
	handed = true
	return fmt.Sprintf("started megagit serve (pid %d) to load %s for the next prompts (its messages: %s)", pid, s.ModelID, logName(e))
}

// startServer starts `megagit serve` for e's registry as a process of its
// own session, handing it the serve lock (fd 3), with no stream of the
// agent's: stdin is /dev/null, stdout and stderr go to serve.log. It does
// not wait for it.
func startServer(exe string, e *Env, lock *local.Lock) (pid int, err error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer null.Close()
	log, err := e.Local.OpenLog(serve.Log, serve.LogMaxBytes)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	fmt.Fprintf(log, "%s megagit: the prompt hook starts megagit serve for %s\n", time.Now().UTC().Format(time.RFC3339), e.Root)
	cmd := exec.Command(exe, ServeArgs(e.Root, e.Settings.ServeIdle)...)
	cmd.Dir = e.Root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, log.File(), log.File()
	cmd.ExtraFiles = []*os.File{lock.File()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %w", exe, err)
	}
	pid = cmd.Process.Pid
	lock.HeldBy(pid)
	// Not waited for: the hook exits first, and the server, in a session
	// of its own, is then no child of anyone's to reap but init's.
	_ = cmd.Process.Release()
	return pid, nil
}

// logName is serve.log's path, for the hook log.
func logName(e *Env) string {
	return filepath.Join(e.Local.Path(), serve.Log)
}
