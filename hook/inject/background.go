package inject

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/megagit/megagit/route/index"
)

// RefreshArgs are the arguments after the megagit binary that refresh the
// compiled index of the registry at root: `megagit -C ROOT index
// --background`, which takes the refresh lock or, when another refresh
// holds it, leaves the work to that one.
func RefreshArgs(root string) []string {
	return []string{"-C", root, "index", "--background"}
}

// startRefresh starts megagit (exe) refreshing the compiled index of the
// registry at root, as a process of its own session with no stream of the
// agent's, so the hook can exit while it runs; done receives its exit.
func startRefresh(exe, root string) (done <-chan error, err error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	cmd := exec.Command(exe, RefreshArgs(root)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	return ch, nil
}

// refreshWithin starts a refresh and waits up to budget for the compiled
// index to be up to date: for the process it started, then for any other
// refresh that held the lock. false: the refresh goes on after the hook
// answers, for the next prompt.
func refreshWithin(exe string, e *Env, budget time.Duration) (bool, error) {
	end := time.Now().Add(budget)
	done, err := startRefresh(exe, e.Root)
	if err != nil {
		return false, err
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return false, fmt.Errorf("%s %v: %w", exe, RefreshArgs(e.Root), err)
		}
	case <-t.C:
		return false, nil
	}
	lock, err := e.Local.AcquireFile(index.RefreshLock, max(time.Until(end), 0))
	if err != nil {
		return false, nil
	}
	lock.Release()
	return true, nil
}
