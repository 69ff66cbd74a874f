package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/routetest"
	"github.com/megagit/megagit/route/serve"
)

// serveProc starts `megagit serve ARGS...` on the registry at dir as a
// child process, through sh so that limit (a shell command such as
// `ulimit -n 300`, "" for none) applies to it alone; it returns the
// server's stderr and a function that returns its exit, when it has
// exited by then. The test's own
// environment is pointed at env's home, so its clients send the
// configuration key the server computes.
func serveProc(t *testing.T, env []string, dir, limit string, args ...string) (*routetest.Log, func(wait time.Duration) (exited bool, err error), *exec.Cmd) {
	t.Helper()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == "HOME" || strings.HasPrefix(k, "XDG_") || k == "MEGAGIT_USER_REGISTRY" || k == "GIT_CONFIG_NOSYSTEM") {
			t.Setenv(k, v)
		}
	}
	script := `exec megagit -C "$0" serve "$@"`
	if limit != "" {
		script = limit + " && " + script
	}
	log := &routetest.Log{}
	cmd := exec.Command("sh", append([]string{"-c", script, dir}, args...)...)
	cmd.Env, cmd.Stderr = env, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var werr error
	go func() { werr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return log, func(wait time.Duration) (bool, error) {
		select {
		case <-done:
			return true, werr
		case <-time.After(wait):
			return false, nil
		}
	}, cmd
}

// `megagit serve` under a real open-file limit of 300 with 400 idle
// connections held open: it keeps serving, answers a client while they
// stay and after they go, and routes as in-process routing does.
func TestServeSurvivesFewDescriptors(t *testing.T) {
	env := procEnv(t)
	dir := t.TempDir()
	mustMegagit(t, env, "-C", dir, "init")
	writeSyntheticSkills(t, dir, 30, "s%03d")
	log, exited, cmd := serveProc(t, env, dir, "ulimit -n 300")
	e := reopen(t, dir)
	client := serveClient(e)
	routetest.WaitServed(t, client, log)
	limits, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "limits"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^Max open files\s+300\s`).Match(limits) {
		t.Fatalf("the server's open-file limit is not 300:\n%s", limits)
	}

	socket := serve.SocketPath(e.Reg.Root(), e.Reg.LocalDir())
	var idle []net.Conn
	for range 400 {
		c, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatalf("connection %d: %v\nserver log:\n%s", len(idle)+1, err, log)
		}
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	s := route.Settings{TopK: 3, Format: "catalog", Budget: 2000}
	const prompt = "stripe webhook signature fails with a timeout"
	if _, _, err := client.Route(prompt, "", s, 30*time.Second); err != nil {
		t.Errorf("a client behind 400 idle connections: %v\nserver log:\n%s", err, log)
	}
	if gone, err := exited(0); gone {
		t.Fatalf("serve exited (%v) with 400 idle connections:\n%s", err, log)
	}
	for _, c := range idle {
		c.Close()
	}
	idle = nil
	if _, _, err := client.Route(prompt, "", s, 30*time.Second); err != nil {
		t.Fatalf("after the idle connections closed: %v\nserver log:\n%s", err, log)
	}
	checkServedLikeLocal(t, e)
}

// `megagit serve --idle 1ns` stops on its own, however small the timeout.
func TestServeTinyIdleStops(t *testing.T) {
	env := procEnv(t)
	dir := t.TempDir()
	mustMegagit(t, env, "-C", dir, "init")
	log, exited, _ := serveProc(t, env, dir, "", "--idle", "1ns")
	gone, err := exited(2 * time.Minute) // a hang, not a slow exit
	if !gone {
		t.Fatalf("serve --idle 1ns still running after two minutes:\n%s", log)
	}
	if err != nil || !strings.Contains(log.String(), "no request for 1ns; stopping") {
		t.Fatalf("serve --idle 1ns: %v\n%s", err, log)
	}
}

// `megagit serve --idle` counts requests, not connections: a client that
// connects again and again and never sends a request does not keep it
// running.
func TestServeIdleIgnoresSilentConnections(t *testing.T) {
	env := procEnv(t)
	dir := t.TempDir()
	mustMegagit(t, env, "-C", dir, "init")
	log, exited, _ := serveProc(t, env, dir, "", "--idle", "2s")
	e := reopen(t, dir)
	routetest.WaitServed(t, serveClient(e), log)
	socket := serve.SocketPath(e.Reg.Root(), e.Reg.LocalDir())
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); { // a hang, not a slow exit
		if gone, err := exited(100 * time.Millisecond); gone {
			if err != nil || !strings.Contains(log.String(), "no request for 2s; stopping") {
				t.Fatalf("serve --idle 2s: %v\n%s", err, log)
			}
			return
		}
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
		}
	}
	t.Fatalf("serve --idle 2s still running after 30 s of connections that sent no request:\n%s", log)
}
