package server

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/routetest"
	"github.com/megagit/megagit/route/serve"
)

// Serve holds the registry's serve lock while it serves: a second one is
// refused with the first's pid, and the state file says serving with the
// model, then stopped once the first ends.
func TestServeHoldsTheLockAndKeepsTheState(t *testing.T) {
	dir := serveTestRegistry(t, 5)
	r := reopen(t, dir)
	d := local.Open(r.Root, 0)
	log := &routetest.Log{}
	m := Managed{
		Version: testVersion, Log: func() io.Writer { return log }, Now: time.Now,
		Open:  func() (Registry, error) { return openTest(dir) },
		Model: func(*route.Router) string { return "test-model" },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, d, m) }()
	routetest.WaitServed(t, clientOf(r), log)
	st, ok := serve.ReadState(d)
	if !ok || st.State != serve.Serving || st.Model != "test-model" || st.PID != os.Getpid() || st.Auto {
		t.Errorf("state while serving = %+v (%v), want serving test-model by this process, not the hook's", st, ok)
	}

	err := Serve(context.Background(), d, m)
	var running *RunningError
	if !errors.As(err, &running) || !errors.Is(err, ErrRunning) || running.PID != os.Getpid() || running.Auto {
		t.Errorf("a second server: %v, want ErrRunning naming pid %d, started by hand", err, os.Getpid())
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the first server ended with %v", err)
	}
	if st, _ := serve.ReadState(d); st.State != serve.Stopped {
		t.Errorf("state after the server ended = %q, want stopped", st.State)
	}
	if pid, err := Stop(d); pid != 0 || err != nil {
		t.Errorf("Stop with no server = %d, %v; want 0, nil", pid, err)
	}
}
