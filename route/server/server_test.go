package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/routetest"
	"github.com/megagit/megagit/route/serve"
)

// testVersion is the megagit version the test server and its clients claim.
const testVersion = "test"

// serveTestRegistry makes a registry of n skills, s000 and on, each
// described by part of one of routetest.Prompts, so that most prompts
// match a few skills and "zanzibar quokka export" none.
func serveTestRegistry(t *testing.T, n int) string {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Test User")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	if _, _, err := registry.Init(dir, config.DefaultFile(), registry.Options{}); err != nil {
		t.Fatal(err)
	}
	var topics [][]string // the prompts' words, one topic a prompt
	for _, p := range routetest.Prompts {
		if w := strings.Fields(p); len(w) > 3 {
			topics = append(topics, w)
		}
	}
	for i := range n {
		w := topics[i%len(topics)]
		k := i / len(topics) % len(w)
		desc := strings.Join(append(w[k:], w[:k/2]...), " ")
		writeSkill(t, dir, fmt.Sprintf("skills/s%03d", i), desc+".")
	}
	return dir
}

// testOptions serves the registry at dir as `megagit serve` does, except
// that it routes lexically with the ranker's defaults: these tests check
// that the server follows the registry, whatever router it is given.
func testOptions(dir string, log *routetest.Log) Options {
	return Options{Version: testVersion, Log: log, Open: func() (Registry, error) { return openTest(dir) }}
}

// openTest opens the registry at dir as a fresh client would.
func openTest(dir string) (Registry, error) {
	root, err := local.Find(dir)
	if err != nil {
		return Registry{}, err
	}
	cfg, _, err := config.Load(configFile(root), nil)
	if err != nil {
		return Registry{}, err
	}
	reg, err := registry.Open(root, registry.Options{Roots: cfg.Roots})
	if err != nil {
		return Registry{}, err
	}
	key, err := json.Marshal(cfg)
	router := func() (*route.Router, error) {
		skills, _, err := reg.Skills()
		if err != nil {
			return nil, err
		}
		docs := make([]ranker.Doc, len(skills))
		for i, s := range skills {
			docs[i] = ranker.Doc{ID: s.Name, Path: s.Path, Description: s.File.Description(), Body: s.File.Body(),
				Status: string(s.Evidence.Status), Weight: s.Evidence.WeightMultiplier()}
		}
		rt, _ := route.New(docs, ranker.DefaultConfig(), nil, route.DynamicKOverride{}, nil)
		return rt, nil
	}
	return Registry{Root: root, LocalDir: reg.LocalDir(), Roots: cfg.Roots, Key: string(key), Router: router}, err
}

// reopen opens the registry at dir as a new client would.
func reopen(t *testing.T, dir string) Registry {
	t.Helper()
	r, err := openTest(dir)
	noErr(t, err)
	return r
}

// clientOf is a client with r's configuration.
func clientOf(r Registry) serve.Client {
	return serve.Client{Version: testVersion, Root: r.Root, LocalDir: r.LocalDir, Config: r.Key}
}

// startServeLog runs the server in this process until the test ends, and
// returns the registry as it opened it and the server's log.
func startServeLog(t *testing.T, dir string) (Registry, *routetest.Log) {
	t.Helper()
	log := &routetest.Log{}
	opts := testOptions(dir, log)
	routetest.Start(t, func(ctx context.Context) error { return Run(ctx, opts) })
	r := reopen(t, dir)
	routetest.WaitServed(t, clientOf(r), log)
	return r, log
}

// checkServedLikeLocal routes prompts through the server and with r's own
// router (see routetest.CheckLikeLocal).
func checkServedLikeLocal(t *testing.T, r Registry) {
	t.Helper()
	local, err := r.Router()
	noErr(t, err)
	routetest.CheckLikeLocal(t, clientOf(r), local)
}

// A server the prompt hook started (Yield) says, when it declines a client
// with other settings, that it stops, and it does; one started by hand
// declines without stopping.
func TestServeYieldSaysItStops(t *testing.T) {
	dir := serveTestRegistry(t, 5)
	log := &routetest.Log{}
	opts := testOptions(dir, log)
	opts.Yield = true
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), opts) }()
	r := reopen(t, dir)
	routetest.WaitServed(t, clientOf(r), log)
	other := serve.Client{Version: testVersion, Root: r.Root, LocalDir: r.LocalDir, Config: "other"}
	_, _, err := other.Route("postgres migration", "", route.Settings{TopK: 3}, 5*time.Second)
	if !errors.Is(err, serve.ErrServerStops) || !errors.Is(err, serve.ErrNotServed) {
		t.Fatalf("a client with other settings: err %v, want a decline that says the server stops", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the yielding server ended with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not stop after declining; log:\n%s", log)
	}

	r2, _ := startServeLog(t, dir)
	other.Root, other.LocalDir = r2.Root, r2.LocalDir
	_, _, err = other.Route("postgres migration", "", route.Settings{TopK: 3}, 5*time.Second)
	if !errors.Is(err, serve.ErrNotServed) || errors.Is(err, serve.ErrServerStops) {
		t.Fatalf("a server started by hand: err %v, want a decline that does not stop it", err)
	}
	if _, _, err := clientOf(r2).Route("postgres migration", "", route.Settings{TopK: 3}, 5*time.Second); err != nil {
		t.Fatalf("after declining, the server started by hand no longer answers: %v", err)
	}
}

// A client of another megagit or another registry is declined, and routes
// in-process.
func TestServeDeclinesOtherClients(t *testing.T) {
	dir := serveTestRegistry(t, 5)
	r, _ := startServeLog(t, dir)
	for name, c := range map[string]serve.Client{
		"version":  {Version: "other", Root: r.Root, LocalDir: r.LocalDir, Config: r.Key},
		"registry": {Version: testVersion, Root: filepath.Join(r.Root, "x"), LocalDir: r.LocalDir, Config: r.Key},
		"settings": {Version: testVersion, Root: r.Root, LocalDir: r.LocalDir, Config: "other"},
	} {
		if _, _, err := c.Route("postgres migration", "", route.Settings{TopK: 3}, 5*time.Second); !errors.Is(err, serve.ErrNotServed) {
			t.Errorf("a client of another %s: err %v, want a decline", name, err)
		}
	}
}
