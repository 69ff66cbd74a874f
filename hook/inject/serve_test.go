package inject

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/serve"
)

// When no server answers, the hook starts one unless one is starting or
// running, or the last could not start and nothing it depends on changed
// (then not before serve.RetryAfter): a server that dies loading,
// saying nothing, is not started again on every prompt either.
func TestEnsureServerStartsOnceAndBacksOff(t *testing.T) {
	truth, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1): the stand-in server")
	}
	root := t.TempDir()
	model := filepath.Join(root, "model.onnx")
	if err := os.WriteFile(model, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	e := &Env{Root: root, Local: local.Open(root, time.Second),
		Settings: &Settings{Model: ModelONNX, ModelID: "tiny", Serve: "auto", ServeIdle: time.Minute, ServeFiles: []string{model}}}
	opts := Options{Now: func() time.Time { return now }, Megagit: func() (string, error) { return truth, nil }}
	served := errors.New("not served: connect: no such file")
	ensure := func(want string) {
		t.Helper()
		got := ensureServer(opts, e, served)
		if !strings.Contains(got, want) {
			t.Fatalf("ensureServer: %q, want it to say %q", got, want)
		}
	}
	waitFree := func() {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); e.Local.FileLockState(serve.Lock).Held; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatal("the stand-in server still holds the lock")
			}
		}
	}

	// A server that declined this client and stops: whether its lock is
	// free yet is a race, so nothing is started before the next prompt.
	ensureWith := func(err error, want string) {
		t.Helper()
		keep := served
		served = err
		defer func() { served = keep }()
		ensure(want)
	}
	ensureWith(fmt.Errorf("%w: client settings differ: %w", serve.ErrNotServed, serve.ErrServerStops),
		"runs but did not answer: not served: client settings differ")
	if st, ok := serve.ReadState(e.Local); ok {
		t.Fatalf("a server was started while the declining one stops: %+v", st)
	}

	// The first call starts a server (here one that exits at once, never
	// saying it serves: it died loading).
	ensure("started megagit serve (pid ")
	if st, ok := serve.ReadState(e.Local); !ok || st.State != serve.Starting || st.Stamp == "" || !st.Auto {
		t.Fatalf("state after a start: %+v", st)
	}
	waitFree()
	ensure("exited while loading, before it answered")
	now = now.Add(serve.RetryAfter - time.Second)
	ensure("could not start at 2026-05-01T10:00:00Z")

	// The model changed: tried again at once.
	if err := os.WriteFile(model, []byte("v2, mended"), 0o644); err != nil {
		t.Fatal(err)
	}
	ensure("started megagit serve")
	waitFree()

	// A failure the server recorded is named; after the wait, tried again.
	st, _ := serve.ReadState(e.Local)
	st.State, st.Error = serve.Failed, "cannot route with tiny: model.onnx: Protobuf parsing failed"
	if err := serve.WriteState(e.Local, st); err != nil {
		t.Fatal(err)
	}
	ensure("could not start at " + st.Time + ": cannot route with tiny: model.onnx: Protobuf parsing failed")
	now = now.Add(serve.RetryAfter)
	ensure("started megagit serve")
	waitFree()

	// A server that stopped (idle, killed once serving) is started again.
	st, _ = serve.ReadState(e.Local)
	st.State = serve.Stopped
	if err := serve.WriteState(e.Local, st); err != nil {
		t.Fatal(err)
	}
	ensure("started megagit serve")
	waitFree()

	// Held: one starts, or runs; nothing is started.
	st.State = serve.Starting
	if err := serve.WriteState(e.Local, st); err != nil {
		t.Fatal(err)
	}
	held, err := e.Local.TryAcquireFile(serve.Lock)
	if err != nil || held == nil {
		t.Fatalf("taking the lock: %v, %v", held, err)
	}
	ensure("megagit serve (pid " + strconv.Itoa(os.Getpid()) + ") is starting")
	st.State = serve.Serving
	if err := serve.WriteState(e.Local, st); err != nil {
		t.Fatal(err)
	}
	ensure("megagit serve (pid " + strconv.Itoa(os.Getpid()) + ") runs but did not answer: not served")
	held.Release()

	e.Settings.Serve = "off"
	ensure("hook.serve is off")
	if info, err := os.Stat(filepath.Join(e.Local.Path(), serve.Log)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("serve.log: %v, %v; want 0600", info, err)
	}
}
