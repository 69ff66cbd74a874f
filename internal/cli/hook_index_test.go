package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/workspace"
	"golang.org/x/sys/unix"
)

// TestHookCompiledIndex checks the prompt hook ranks identically from a
// freshly built index, from the compiled index it saved (read, or mapped
// as the hook process does), and after a skill changed (the cache must
// notice, even an edit in place that keeps the size and modification
// time), compared with the router every other command builds from the
// SKILL.md files.
func TestHookCompiledIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, model := range []string{"none", models.BuiltinID} {
		for _, mapped := range []bool{false, true} {
			t.Run(fmt.Sprintf("model=%s/mapped=%v", model, mapped), func(t *testing.T) {
				if mapped {
					defer index.MapIndexFiles()()
				}
				testHookCompiledIndex(t, model)
			})
		}
	}
}

func testHookCompiledIndex(t *testing.T, model string) {
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
	old := filepath.Join(dir, ".megagit", "local", "route-index.gob")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("a compiled index of format 4"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("docker-cache", "Speed up docker image builds with layer caching. Use when a docker build is slow.")
	write("flaky-tests", "Triage flaky tests that fail randomly on CI. Use when a test passes locally but fails in the pipeline.")
	write("pg-migrations", "Plan and apply postgres schema migrations safely.")
	prompts := []string{"the docker image build is slow", "my tests fail randomly on ci", "hello", "postgres migration docker"}
	var last *route.Router // what the hook's router answered last
	check := func(step, format string) {
		t.Helper()
		e, err := workspace.OpenHook(dir)
		if err != nil {
			t.Fatal(err)
		}
		e.Cfg.Model.ID = model
		e.Cfg.Route.Format = format
		if last != nil {
			// The hook answers from the compiled index it has, without a
			// stat per skill: an edited skill shows once it is refreshed.
			stale, err := hookRouter(e)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range prompts {
				if got, exp := stale.Route(p, route.Settings{TopK: 10}), last.Route(p, route.Settings{TopK: 10}); !reflect.DeepEqual(got.Res, exp.Res) {
					t.Fatalf("%s: %q: before a refresh the hook does not answer from the compiled index it has", step, p)
				}
			}
		}
		// route refreshes the compiled index; the hook then reads it.
		want, err := (&app{errOut: discard{}}).router(e, true)
		if err != nil {
			t.Fatal(err)
		}
		hr, err := hookRouter(e)
		if err != nil {
			t.Fatal(err)
		}
		if (hr.Sem != nil) != (model != "none") || (want.Sem != nil) != (model != "none") {
			t.Fatalf("%s: model %s: the hook's router has a dense channel: %v, route's: %v", step, model, hr.Sem != nil, want.Sem != nil)
		}
		last = hr
		s := route.Settings{TopK: e.Cfg.Route.TopK, Format: e.Cfg.Route.Format, Budget: e.Cfg.Route.Budget}
		for _, p := range prompts {
			got, exp := hr.Route(p, s), want.Route(p, s)
			if format == "compose" && exp.Rendered.Text != "" && !strings.Contains(got.Rendered.Text, "## Steps") {
				t.Fatalf("%s: %q: compose injection has no body:\n%s", step, p, got.Rendered.Text)
			}
			if !reflect.DeepEqual(got, exp) {
				t.Fatalf("%s: %q routes differently from the compiled index:\n got %+v\nwant %+v", step, p, got.Res, exp.Res)
			}
		}
	}
	check("first call", "catalog")
	if _, err := os.Stat(filepath.Join(dir, ".megagit", "local", index.IndexFile)); err != nil {
		t.Fatalf("compiled index not saved: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the old compiled index was not removed: %v", err)
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

	// An edit in place of the same size, its modification time put back:
	// only the change time tells.
	p := filepath.Join(dir, "skills", "pg-migrations", "SKILL.md")
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	was := stampFor(t, p)
	time.Sleep(20 * time.Millisecond)
	desc := "Plan and apply postgres schema migrations safely."
	write("pg-migrations", (strings.Repeat("docker image builds ", 5))[:len(desc)])
	if err := os.Chtimes(p, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	now := stampFor(t, p)
	if now.Size != was.Size || now.Mtim != was.Mtim {
		t.Fatalf("the edit changed size or mtime: %+v -> %+v", was, now)
	}
	if now.Ctim == was.Ctim {
		t.Skip("this filesystem's change times are too coarse for the in-place edit case")
	}
	check("after an edit in place keeping size and mtime", "catalog")
	check("from the compiled index after the edit in place", "compose")
}

func stampFor(t *testing.T, p string) unix.Stat_t {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
