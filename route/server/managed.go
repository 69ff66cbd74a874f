package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/serve"
)

// Managed is a server run as `megagit serve` runs one: under the
// registry's serve lock, with its state file kept current.
type Managed struct {
	Version string
	Idle    time.Duration
	// Log receives the server's messages; Locked, if set, is called once
	// the lock is held, before anything is logged (the command then points
	// Log at serve.log for a server the prompt hook started).
	Log    func() io.Writer
	Locked func()
	// LockFD, when > 0, is the serve lock the prompt hook took and handed
	// down: the server is the hook's (auto). It yields to a client it
	// declines, stops on SIGTERM or an interrupt only once its model is
	// loaded, and a router that fails to load after it started stops it.
	LockFD uintptr
	Open   func() (Registry, error)
	// Model names what a router routes with, for the state file.
	Model func(*route.Router) string
	Now   func() time.Time
}

// RunningError is a second server for a registry whose server runs.
type RunningError struct {
	PID  int
	Auto bool // the running one was started by the prompt hook
}

func (e *RunningError) Error() string {
	by := ""
	if e.Auto {
		by = ", started by the prompt hook"
	}
	return fmt.Sprintf("%v (pid %d%s)", ErrRunning, e.PID, by)
}

// Is makes errors.Is(err, ErrRunning) hold.
func (e *RunningError) Is(target error) bool { return target == ErrRunning }

// Serve serves the registry whose machine folder is d until ctx ends or
// the server stops, holding d's serve lock meanwhile (taken here, or handed
// down) and writing the state file at each step: starting (a hook's
// server), serving, then stopped or, for a hook's server, failed.
func Serve(ctx context.Context, d local.Dir, m Managed) error {
	auto := m.LockFD > 0
	prev, _ := serve.ReadState(d)
	var lock *local.Lock
	var err error
	if auto {
		if lock, err = d.AdoptLock(m.LockFD, serve.Lock); err != nil {
			return err
		}
	} else if lock, err = d.TryAcquireFile(serve.Lock); err != nil {
		return err
	} else if lock == nil {
		info := d.FileLockState(serve.Lock)
		st, ok := serve.ReadState(d)
		return &RunningError{PID: info.PID, Auto: ok && st.PID == info.PID && st.Auto}
	}
	defer lock.Release()
	if m.Locked != nil {
		m.Locked()
	}
	stamp := func() string { return m.Now().UTC().Format(time.RFC3339) }
	write := func(st serve.State) {
		if err := serve.WriteState(d, st); err != nil {
			fmt.Fprintf(m.Log(), "megagit: warning: %v\n", err)
		}
	}
	st := serve.State{State: serve.Starting, PID: os.Getpid(), Time: stamp(), Auto: auto, Idle: m.Idle.String()}
	if auto {
		st.Stamp = prev.Stamp // the hook's, of when it started this server
		write(st)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if auto {
		// A stop while the model loads lets the server finish loading and
		// stop cleanly (stopped, not a start that failed).
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var lost error // the model stopped loading after the server started
	started := false
	model := "no model: lexical"
	err = Run(ctx, Options{Version: m.Version, Idle: m.Idle, Log: m.Log(), Yield: auto, Open: func() (Registry, error) {
		reg, err := m.Open()
		if err != nil {
			return Registry{}, err
		}
		router := reg.Router
		reg.Router = func() (*route.Router, error) {
			rt, err := router()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && started && auto:
				lost = err
				cancel()
			case err == nil:
				model = m.Model(rt)
			}
			return rt, err
		}
		return reg, nil
	}, Ready: func(string, int) {
		mu.Lock()
		started = true
		st.State, st.Model, st.Time = serve.Serving, model, stamp()
		mu.Unlock()
		write(st)
	}})
	mu.Lock()
	if err == nil {
		err = lost
	}
	mu.Unlock()
	switch {
	case err != nil && auto:
		st.State, st.Error, st.Time = serve.Failed, err.Error(), stamp()
		write(st)
	case started:
		st.State, st.Time = serve.Stopped, stamp()
		write(st)
	}
	return err
}

// StopWait bounds how long Stop waits for the server to exit.
const StopWait = 10 * time.Second

// Stop stops the server of the registry whose machine folder is d:
// SIGTERM to the holder of its serve lock, then a wait for the lock to be
// free. It returns the server's pid, or 0 when none runs.
func Stop(d local.Dir) (int, error) {
	info := d.FileLockState(serve.Lock)
	if !info.Held {
		return 0, nil
	}
	if info.PID <= 0 || info.PID == os.Getpid() {
		return 0, fmt.Errorf("%s names no process (%d): cannot stop the server", serve.Lock, info.PID)
	}
	if err := syscall.Kill(info.PID, syscall.SIGTERM); err != nil {
		return 0, fmt.Errorf("stopping megagit serve (pid %d): %w", info.PID, err)
	}
	for end := time.Now().Add(StopWait); ; time.Sleep(20 * time.Millisecond) {
		now := d.FileLockState(serve.Lock)
		if !now.Held {
			return info.PID, nil
		}
		if time.Now().After(end) {
			return 0, fmt.Errorf("megagit serve (pid %d) did not stop within %s", now.PID, StopWait)
		}
		if now.PID != info.PID && now.PID > 0 {
			// The hook that started the server named it only now.
			info = now
			_ = syscall.Kill(info.PID, syscall.SIGTERM)
		}
	}
}
