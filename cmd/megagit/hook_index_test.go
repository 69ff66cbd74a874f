package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestHookCompiledIndex checks the prompt hook ranks identically from a
// freshly built index, from the compiled index it saved, and after a skill
// changed (the cache must notice), compared with the router every other
// command builds from the SKILL.md files.
func TestHookCompiledIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write := func(name, desc string) {
		p := filepath.Join(dir, "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("---\nname: %s\ndescription: %q\n---\n\n# %s\n\n## Steps\n1. %s\n", name, desc, name, desc)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".megagit"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("docker-cache", "Speed up docker image builds with layer caching. Use when a docker build is slow.")
	write("flaky-tests", "Triage flaky tests that fail randomly on CI. Use when a test passes locally but fails in the pipeline.")
	write("pg-migrations", "Plan and apply postgres schema migrations safely.")
	prompts := []string{"the docker image build is slow", "my tests fail randomly on ci", "hello", "postgres migration docker"}
	check := func(step, format string) {
		t.Helper()
		e, err := openHookEnv(dir)
		if err != nil {
			t.Fatal(err)
		}
		e.cfg.Model.ID = "none"
		e.cfg.Route.Format = format
		hr, err := hookRouter(e, newCacheGuard())
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.router(&app{errOut: discard{}})
		if err != nil {
			t.Fatal(err)
		}
		s := routeSettings{TopK: e.cfg.Route.TopK, Format: e.cfg.Route.Format, Budget: e.cfg.Route.Budget}
		for _, p := range prompts {
			got, exp := hr.route(p, s), want.route(p, s)
			if format == "compose" && exp.rendered.Text != "" && !strings.Contains(got.rendered.Text, "## Steps") {
				t.Fatalf("%s: %q: compose injection has no body:\n%s", step, p, got.rendered.Text)
			}
			if !reflect.DeepEqual(got, exp) {
				t.Fatalf("%s: %q routes differently from the compiled index:\n got %+v\nwant %+v", step, p, got.res, exp.res)
			}
		}
	}
	check("first call", "catalog")
	if _, err := os.Stat(filepath.Join(dir, ".megagit", "local", indexCacheName)); err != nil {
		t.Fatalf("compiled index not saved: %v", err)
	}
	check("from the compiled index", "catalog")
	check("from the compiled index, with bodies", "compose")
	write("flaky-tests", "Triage flaky tests and docker image builds that fail randomly on CI.")
	later := time.Now().Add(2 * time.Second) // a new mtime even on coarse clocks
	if err := os.Chtimes(filepath.Join(dir, "skills", "flaky-tests", "SKILL.md"), later, later); err != nil {
		t.Fatal(err)
	}
	check("after a skill changed", "compose")
	check("from the rebuilt compiled index", "catalog")
	check("from the rebuilt compiled index, with bodies", "compose")
}

func TestCacheGuard(t *testing.T) {
	g := newCacheGuard()
	release := g.hold()
	if g.wait(10 * time.Millisecond) {
		t.Fatal("wait took a guard that is held")
	}
	release()
	if !g.wait(time.Second) {
		t.Fatal("wait did not take a free guard")
	}
	var none cacheGuard
	none.hold()() // a nil guard never blocks
}
