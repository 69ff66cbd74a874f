package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/route/routetest"
	"github.com/megagit/megagit/route/serve"
)

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newTestServer sets a server up as Run does, without the socket.
func newTestServer(t testing.TB, dir string) (*server, *routetest.Log) {
	t.Helper()
	log := &routetest.Log{}
	opts := testOptions(dir, log)
	r, err := opts.Open()
	noErr(t, err)
	s := &server{opts: opts, root: r.Root}
	noErr(t, s.refresh())
	s.startWatch()
	t.Cleanup(s.stopWatch)
	return s, log
}

// agree routes prompt through the server and in this process, fails on any
// difference, and returns the names served.
func agree(t *testing.T, r Registry, prompt string) []string {
	t.Helper()
	local, err := r.Router()
	noErr(t, err)
	s := route.Settings{TopK: 3, Format: "catalog", Budget: 2000}
	docs, rr, err := clientOf(r).Route(prompt, "", s, 5*time.Second)
	if err != nil {
		t.Fatalf("%q: %v", prompt, err)
	}
	got, want := routetest.SeenOf(docs, rr), routetest.SeenOf(local.Docs, local.Route(prompt, s))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q: served %+v\nin-process %+v", prompt, got, want)
	}
	return got.Names
}

// writeFile writes rel under dir, making its folders.
func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	noErr(t, os.MkdirAll(filepath.Dir(p), 0o755))
	noErr(t, os.WriteFile(p, []byte(text), 0o644))
}

func writeSkill(t *testing.T, dir, name, description string) {
	t.Helper()
	writeFile(t, dir, name+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# %s\n", filepath.Base(name), description, description))
}

// editInPlace rewrites a SKILL.md in place (same inode, same size, padded
// with spaces) and puts its modification time back: only its change time
// and the watch can tell.
func editInPlace(t *testing.T, p, name, description string) {
	t.Helper()
	before, err := os.Stat(p)
	noErr(t, err)
	text := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# Skill\n", name, description)
	if pad := int(before.Size()) - len(text); pad > 0 {
		text += strings.Repeat(" ", pad-1) + "\n"
	} else if pad < 0 {
		t.Fatalf("%s is too short for %q", p, text)
	}
	noErr(t, os.WriteFile(p, []byte(text), 0o644))
	noErr(t, os.Chtimes(p, before.ModTime(), before.ModTime()))
	after, err := os.Stat(p)
	noErr(t, err)
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Fatalf("the edit changed size, mtime or inode: %v %v -> %v %v", before.Size(), before.ModTime(), after.Size(), after.ModTime())
	}
}

// watching fails unless the server watches the registry (on Linux).
func watching(t *testing.T, log *routetest.Log) {
	t.Helper()
	if runtime.GOOS == "linux" && strings.Contains(log.String(), "cannot watch") {
		t.Fatalf("the server does not watch: %s", log.String())
	}
}

const quokka = "zanzibar quokka export"

// first is the top skill served; the model may add weaker ones.
func first(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

func TestServeWatchSeesInPlaceEdit(t *testing.T) {
	dir := serveTestRegistry(t, 20)
	e, log := startServeLog(t, dir)
	if got := agree(t, e, quokka); len(got) != 0 {
		t.Fatalf("before the edit: %v", got)
	}
	key, err := index.SkillsKey(e.Root, e.Roots)
	noErr(t, err)
	editInPlace(t, filepath.Join(dir, "skills", "s005", "SKILL.md"), "s005", "Export quokka census data from Zanzibar.")
	// The stat fingerprint (the check without a watch) sees it too, by the
	// change time.
	if again, err := index.SkillsKey(e.Root, e.Roots); err != nil || again == key {
		t.Errorf("SkillsKey missed an in-place edit (err %v)", err)
	}
	if got := agree(t, e, quokka); first(got) != "s005" {
		t.Errorf("after the edit: %v, want [s005]", got)
	}
	checkServedLikeLocal(t, e)
	watching(t, log)
}

func TestServeWatchSeesSkillsAddedAndDeleted(t *testing.T) {
	dir := serveTestRegistry(t, 20)
	e, log := startServeLog(t, dir)
	// A folder first, its SKILL.md later: the new folder must be watched.
	noErr(t, os.Mkdir(filepath.Join(dir, "skills", "zq"), 0o755))
	if got := agree(t, e, quokka); len(got) != 0 {
		t.Fatalf("an empty folder: %v", got)
	}
	writeSkill(t, dir, "skills/zq", "Export quokka census data from Zanzibar.")
	if got := agree(t, e, quokka); first(got) != "zq" {
		t.Errorf("after adding zq: %v", got)
	}
	editInPlace(t, filepath.Join(dir, "skills", "zq", "SKILL.md"), "zq", "Paint fences.")
	if got := agree(t, e, quokka); len(got) != 0 {
		t.Errorf("after editing zq: %v", got)
	}
	writeSkill(t, dir, "skills/s007", "Export quokka census data from Zanzibar.")
	if got := agree(t, e, quokka); first(got) != "s007" {
		t.Errorf("after rewriting s007: %v", got)
	}
	noErr(t, os.RemoveAll(filepath.Join(dir, "skills", "s007")))
	if got := agree(t, e, quokka); len(got) != 0 {
		t.Errorf("after deleting s007: %v", got)
	}
	checkServedLikeLocal(t, e)
	watching(t, log)
}

func TestServeWatchSeesConfigEdits(t *testing.T) {
	dir := serveTestRegistry(t, 20)
	e, log := startServeLog(t, dir)
	cfg := filepath.Join(dir, ".megagit", "config.yaml")
	noErr(t, os.WriteFile(cfg, []byte("route:\n  mmr_lambda: 0.5\n"), 0o644))
	if _, _, err := clientOf(e).Route(quokka, "", route.Settings{TopK: 3, Format: "catalog"}, 5*time.Second); !errors.Is(err, serve.ErrNotServed) {
		t.Errorf("a client with the old settings: err %v, want a decline", err)
	}
	checkServedLikeLocal(t, reopen(t, dir))

	// A new root that does not exist yet, then a skill in it.
	noErr(t, os.WriteFile(cfg, []byte("roots: [skills, more/skills]\nroute:\n  mmr_lambda: 0.5\n"), 0o644))
	e = reopen(t, dir)
	if got := agree(t, e, quokka); len(got) != 0 {
		t.Fatalf("before adding m1: %v", got)
	}
	writeSkill(t, dir, "more/skills/m1", "Export quokka census data from Zanzibar.")
	if got := agree(t, e, quokka); first(got) != "m1" {
		t.Errorf("after adding m1: %v", got)
	}
	editInPlace(t, filepath.Join(dir, "more", "skills", "m1", "SKILL.md"), "m1", "Paint fences.")
	if got := agree(t, e, quokka); len(got) != 0 {
		t.Errorf("after editing m1: %v", got)
	}
	checkServedLikeLocal(t, e)
	watching(t, log)
}

func TestServeWatchSeesABurst(t *testing.T) {
	dir := serveTestRegistry(t, 30)
	e, log := startServeLog(t, dir)
	agree(t, e, quokka)
	for round := 0; round < 3; round++ {
		for i := 0; i < 20; i++ {
			desc := fmt.Sprintf("Paint fences, round %d.", round)
			if i == 3*round+1 {
				desc = "Export quokka census data from Zanzibar."
			}
			writeSkill(t, dir, fmt.Sprintf("skills/s%03d", i), desc)
		}
		want := fmt.Sprintf("s%03d", 3*round+1)
		if got := agree(t, e, quokka); first(got) != want {
			t.Errorf("round %d: %v, want %v", round, got, want)
		}
	}
	checkServedLikeLocal(t, e)
	watching(t, log)
}

func TestServeWithoutWatch(t *testing.T) {
	for name, hook := range map[string]func() (*fsnotify.Watcher, error){
		"no watcher": func() (*fsnotify.Watcher, error) { return nil, errors.New("no inotify here") },
		// A closed watcher fails every Add, as a full watch table would.
		"failed add": func() (*fsnotify.Watcher, error) {
			w, err := fsnotify.NewWatcher()
			if err == nil {
				w.Close()
			}
			return w, err
		},
	} {
		t.Run(name, func(t *testing.T) {
			old := newServeWatcher
			t.Cleanup(func() { newServeWatcher = old }) // after the server stops
			newServeWatcher = hook
			dir := serveTestRegistry(t, 20)
			e, log := startServeLog(t, dir)
			if runtime.GOOS == "linux" && strings.Count(log.String(), "cannot watch") != 1 {
				t.Errorf("want one warning, got: %s", log.String())
			}
			editInPlace(t, filepath.Join(dir, "skills", "s005", "SKILL.md"), "s005", "Export quokka census data from Zanzibar.")
			if got := agree(t, e, quokka); first(got) != "s005" {
				t.Errorf("after the edit: %v, want [s005]", got)
			}
			noErr(t, os.RemoveAll(filepath.Join(dir, "skills", "s005")))
			if got := agree(t, e, quokka); len(got) != 0 {
				t.Errorf("after deleting s005: %v", got)
			}
			checkServedLikeLocal(t, e)
		})
	}
}

// TestServeWatchChecksOnlyAfterChanges checks that a quiet registry is not
// re-checked, and that a change anywhere the router reads from is.
func TestServeWatchChecksOnlyAfterChanges(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the server watches on Linux only")
	}
	dir := serveTestRegistry(t, 10)
	s, log := newTestServer(t, dir)
	if s.watch == nil {
		t.Fatalf("no watch: %s", log.String())
	}
	full := func() bool {
		t.Helper()
		f := s.check()
		if _, err := s.settle(f); err != nil {
			t.Fatal(err)
		}
		return !f.same
	}
	full() // the first request after start
	write := func(rel, text string) { writeFile(t, dir, rel, text) }
	steps := []struct {
		name   string
		change func()
		full   bool
	}{
		{"nothing", func() {}, false},
		{"a decision logged", func() { write(".megagit/local/decisions.jsonl", "{}\n") }, false},
		{"a session file", func() { write(".megagit/local/sessions/x.json", "{}") }, false},
		{"a SKILL.md edited", func() { write("skills/s003/SKILL.md", "---\nname: s003\ndescription: x\n---\n") }, true},
		{"nothing after it", func() {}, false},
		{"a folder made", func() { write("skills/new/notes.txt", "") }, true},
		{"its SKILL.md written", func() { write("skills/new/SKILL.md", "---\nname: new\ndescription: y\n---\n") }, true},
		{"a ledger written", func() { write(".megagit/ledger/new.jsonl", "") }, true},
		{"the ledger appended", func() { write(".megagit/ledger/new.jsonl", "\n") }, true},
		{"the config written", func() { write(".megagit/config.yaml", "route:\n  top_k: 4\n") }, true},
		{"this machine's config written", func() { write(".megagit/local/config.yaml", "route:\n  top_k: 3\n") }, true},
		{"touched", func() { now := time.Now(); _ = os.Chtimes(filepath.Join(dir, "skills", "s001", "SKILL.md"), now, now) }, true},
		{"nothing at last", func() {}, false},
	}
	for _, st := range steps {
		st.change()
		if got := full(); got != st.full {
			t.Errorf("%s: full check %v, want %v", st.name, got, st.full)
		}
	}
	watching(t, log)
}

// BenchmarkServeCheck times the freshness check of a request to a quiet
// registry, watched (the barrier) and not (a stat per SKILL.md), and the
// watch upkeep a changed registry adds to the latter, on the registry
// MEGAGIT_BENCH_REGISTRY names: e.g. one of 1,000 skills written by
// internal/cli's TestGenBenchRegistry or by the lab's benchreg tool:
//
//	MEGAGIT_BENCH_REGISTRY=/tmp/reg1000 go test ./route/server -run x -bench ServeCheck
func BenchmarkServeCheck(b *testing.B) {
	dir := os.Getenv("MEGAGIT_BENCH_REGISTRY")
	if dir == "" {
		b.Skip("set MEGAGIT_BENCH_REGISTRY to a registry")
	}
	s, log := newTestServer(b, dir)
	if s.watch == nil {
		b.Fatalf("no watch: %s", log.String())
	}
	s.check()
	b.Run("watched", func(b *testing.B) {
		for b.Loop() {
			if !s.check().same {
				b.Fatal("a quiet registry was checked in full")
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			s.freshness()
		}
	})
	// What a changed registry adds to the full check: renewing the watches.
	b.Run("resync", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.watch.sync(s.env.Roots); err != nil {
				b.Fatal(err)
			}
		}
	})
}
