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

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
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
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			defer mapIndexFile.Store(mapIndexFile.Load())
			mapIndexFile.Store(mapped)
			testHookCompiledIndex(t)
		})
	}
}

func testHookCompiledIndex(t *testing.T) {
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
	old := filepath.Join(dir, ".megagit", "local", oldIndexCacheName)
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
	if now.size != was.size || now.mtime != was.mtime {
		t.Fatalf("the edit changed size or mtime: %+v -> %+v", was, now)
	}
	if now.ctime == was.ctime {
		t.Skip("this filesystem's change times are too coarse for the in-place edit case")
	}
	check("after an edit in place keeping size and mtime", "catalog")
	check("from the compiled index after the edit in place", "compose")
}

func stampFor(t *testing.T, p string) stamp {
	t.Helper()
	st := statAll([]string{p})[0]
	if !st.ok {
		t.Fatalf("cannot stat %s", p)
	}
	return st
}

// fullDoc is a document with every field set, so a field the compiled
// index forgets shows in a round trip.
func fullDoc(i int) ranker.Doc {
	d := ranker.Doc{
		ID: fmt.Sprintf("skill-%d", i), Path: fmt.Sprintf("skills/skill-%d/SKILL.md", i), Description: "Speed up docker builds. Use when slow.",
		Headings: []string{"Steps", "Gotchas"}, Triggers: []string{"Use when slow."}, Body: "# Steps\n1. cache\n",
		HelpfulContexts: []string{"docker build slow"}, HarmfulContexts: []string{"kubernetes", ""},
		HelpfulCount: 3 + i, HarmfulCount: -1, Status: "suspect", Weight: 1.25,
		Related: []ranker.Reason{{Text: "found it", Helpful: true}, {Text: "wrong tool"}},
	}
	v := reflect.ValueOf(d)
	for k := 0; k < v.NumField(); k++ {
		if v.Field(k).IsZero() {
			panic("fullDoc leaves " + v.Type().Field(k).Name + " unset")
		}
	}
	return d
}

// TestDocCodec checks the documents and bodies survive the compiled
// index's encoding, and that a damaged encoding is refused, never a panic.
func TestDocCodec(t *testing.T) {
	docs := []ranker.Doc{fullDoc(0), {ID: "bare"}, fullDoc(2)}
	enc := appendDocs(nil, docs)
	bodies := appendBodies(nil, docs)
	got, ok := decodeDocs(enc, len(docs))
	if !ok || !decodeBodies(bodies, got) {
		t.Fatal("decoding failed")
	}
	if !reflect.DeepEqual(got, docs) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, docs)
	}
	if _, ok := decodeDocs(enc, len(docs)+1); ok {
		t.Fatal("decoded more documents than encoded")
	}
	for n := 0; n < len(enc); n++ {
		if _, ok := decodeDocs(enc[:n], len(docs)); ok {
			t.Fatalf("decoded a truncated encoding (%d of %d bytes)", n, len(enc))
		}
	}
	for i := range enc {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			b := append([]byte(nil), enc...)
			b[i] = v
			if docs, ok := decodeDocs(b, 3); ok {
				decodeBodies(bodies, docs)
			}
		}
	}
}

// TestReadDocCacheDamaged checks a damaged compiled index is read as
// missing (then rebuilt), never as something else and never a panic.
func TestReadDocCacheDamaged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".megagit"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Open(dir, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := []ranker.Doc{fullDoc(0), fullDoc(1)}
	rc := ranker.DefaultConfig()
	key, rkey := strings.Repeat("a", indexKeyLen), rankerKey(rc)
	writeDocCache(reg, docCache{docCacheHeader: docCacheHeader{Version: indexCacheVersion, Key: key, IndexKey: rkey}, Docs: docs, Index: ranker.NewIndex(docs, rc).Snapshot()})
	p := filepath.Join(reg.LocalDir(), indexCacheName)
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		mapIndexFile.Store(mapped)
		c, ok := readDocCache(reg, rkey, true)
		if !ok || c.Key != key || c.Index == nil || !reflect.DeepEqual(c.Docs, docs) {
			t.Fatalf("mapped=%v: the compiled index does not read back: ok=%v %+v", mapped, ok, c.docCacheHeader)
		}
		if c, ok := readDocCache(reg, "other settings", false); !ok || c.Index != nil || c.Docs[0].Body == "" {
			t.Fatalf("mapped=%v: other ranker settings: ok=%v, index %v, bodies %q", mapped, ok, c.Index != nil, c.Docs[0].Body)
		}
	}
	mapIndexFile.Store(false)
	h, _ := parseIndexHeader(good)
	// damage writes b and checks it is refused; with onlyBodies, only when
	// the bodies are read (a call without them never looks at them).
	damage := func(name string, b []byte, onlyBodies bool) {
		t.Helper()
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, bodies := range []bool{false, true} {
			if _, ok := readDocCache(reg, rkey, bodies); ok && (bodies || !onlyBodies) {
				t.Fatalf("%s: a damaged compiled index was read (bodies=%v)", name, bodies)
			}
		}
	}
	for n := 0; n < len(good); n += 7 {
		damage(fmt.Sprintf("truncated to %d", n), good[:n], false)
	}
	for i := range good {
		if i >= 16 && i < 144 {
			continue // a key: read fine, then found stale
		}
		b := append([]byte(nil), good...)
		b[i] ^= 0x5a
		damage(fmt.Sprintf("byte %d altered", i), b, (i >= 172 && i < 176) || uint64(i) >= h.bodiesOff())
	}
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
