package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
)

func TestCacheFlags(t *testing.T) {
	clear := func(o *cacheOptions) { o.app = nil }
	t.Run("status", func(t *testing.T) {
		testFlags(t, newCacheStatusCmd, clear, []flagCase[cacheOptions]{
			{name: "no flags", want: cacheOptions{}},
			{name: "json", args: []string{"--json"}, want: cacheOptions{json: true}},
			{name: "an argument", args: []string{"extra"}, wantErr: "expects no arguments"},
		})
	})
	t.Run("verify", func(t *testing.T) {
		testFlags(t, newCacheVerifyCmd, clear, []flagCase[cacheOptions]{
			{name: "no flags", want: cacheOptions{verify: true}},
			{name: "json", args: []string{"--json"}, want: cacheOptions{json: true, verify: true}},
			{name: "unknown flag", args: []string{"--bogus"}, wantErr: "unknown flag: --bogus"},
		})
	})
}

// gitHome gives in-process runs a git identity.
func gitHome(t *testing.T) {
	home := t.TempDir()
	cfg := "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func mustRun(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if got := run(args, nil, &out, &errOut); got != want {
		t.Fatalf("megagit %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, want, out.String(), errOut.String())
	}
	return out.String()
}

// The --json report parses and says what the text report says.
func TestCacheJSON(t *testing.T) {
	if _, err := models.Builtin(); err != nil {
		t.Skip(err)
	}
	gitHome(t)
	reg := filepath.Join(t.TempDir(), "reg")
	mustRun(t, 0, "init", reg)
	mustRun(t, 0, "-C", reg, "skill", "add", "webhook-signer", "--description", "Validate HMAC signatures of incoming webhooks.")
	mustRun(t, 0, "-C", reg, "skill", "add", "docker-slim", "--description", "Shrink Docker images with multi-stage builds.")
	mustRun(t, 0, "-C", reg, "embed")
	skill := filepath.Join(reg, "skills", "docker-slim", "SKILL.md")
	data, _ := os.ReadFile(skill)
	os.WriteFile(skill, bytes.Replace(data, []byte("Shrink"), []byte("Slim down"), 1), 0o644)

	var r embedcache.Report
	if err := json.Unmarshal([]byte(mustRun(t, exitProblems, "-C", reg, "cache", "verify", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Model != embedcache.CacheKey(mustBuiltin(t)) || r.Dim != 256 || len(r.Caches) != 2 {
		t.Fatalf("report: %+v", r)
	}
	c := r.Caches[0]
	want := embedcache.CacheState{Kind: "committed", Dir: ".megagit/embeddings/" + models.BuiltinID, Integrity: embedcache.IntegrityOK, Model: r.Model,
		Dtype: "float32", Dim: 256, Rows: 4, Skills: 1, Stale: []string{"docker-slim"}, Missing: []string{}, Orphans: []string{},
		Anchor: "ok", Cosine: c.Cosine}
	if !reflect.DeepEqual(c, want) || *c.Cosine < 0.999 {
		t.Fatalf("committed:\n got %+v\nwant %+v", c, want)
	}
	if r.Caches[1].Kind != "local" || r.Caches[1].Integrity != embedcache.IntegrityAbsent {
		t.Fatalf("local: %+v", r.Caches[1])
	}
	// The skill file is the user's uncommitted edit, the cache files are not:
	// plain embed is the fix.
	if len(r.Problems) != 1 || r.Problems[0].Fix != "megagit embed" || !strings.Contains(r.Problems[0].Problem, "docker-slim") {
		t.Fatalf("problems: %+v", r.Problems)
	}
	// status reports the same and exits 0.
	var s embedcache.Report
	if err := json.Unmarshal([]byte(mustRun(t, 0, "-C", reg, "cache", "status", "--json")), &s); err != nil || !reflect.DeepEqual(s.Problems, r.Problems) {
		t.Fatalf("status: %v %+v", err, s.Problems)
	}
}

// A cache written before anchors is a note, not a failure, and the next
// embed adds the anchor without re-embedding anything.
func TestCacheNoAnchorUpgrade(t *testing.T) {
	if _, err := models.Builtin(); err != nil {
		t.Skip(err)
	}
	gitHome(t)
	reg := filepath.Join(t.TempDir(), "reg")
	mustRun(t, 0, "init", reg)
	mustRun(t, 0, "-C", reg, "skill", "add", "docker-slim", "--description", "Shrink Docker images with multi-stage builds.")
	mustRun(t, 0, "-C", reg, "embed")
	// Rewrite the committed cache as an old megagit wrote it: no anchor row.
	emb := mustBuiltin(t)
	dir := embedcache.CacheDir(reg, emb.ID())
	c := embedcache.OpenCache(dir, embedcache.CacheKey(emb), emb.Dim(), func(s string) { t.Fatal(s) })
	c.Retain(func(skill, _, _ string) bool { return skill != embedcache.AnchorSkill })
	if err := c.Save(false); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "commit", "-qam", "old cache")
	git.Dir = reg
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	out := mustRun(t, 0, "-C", reg, "cache", "verify")
	if !strings.Contains(out, "\tnone\n") || !strings.Contains(out, "no anchor (written before drift anchors existed)") {
		t.Fatalf("verify of a pre-anchor cache:\n%s", out)
	}
	var errOut bytes.Buffer
	if code := run([]string{"-C", reg, "embed"}, nil, &bytes.Buffer{}, &errOut); code != 0 ||
		!strings.Contains(errOut.String(), "embedded 0, kept 1 skills with "+models.BuiltinID+" (0 of 2 texts computed, drift anchor added)") {
		t.Fatalf("embed: exit %d\n%s", code, errOut.String())
	}
	if out := mustRun(t, 0, "-C", reg, "cache", "status"); !strings.Contains(out, "\tok (1.000)\n") || strings.Contains(out, "note:") {
		t.Fatalf("status after embed:\n%s", out)
	}
}

// A committed anchor row whose text hash was edited is a problem verify
// reports, with embed as the fix: verify passes only a cache that embed
// leaves as it is.
func TestCacheTamperedAnchorRow(t *testing.T) {
	if _, err := models.Builtin(); err != nil {
		t.Skip(err)
	}
	gitHome(t)
	reg := filepath.Join(t.TempDir(), "reg")
	mustRun(t, 0, "init", reg)
	mustRun(t, 0, "-C", reg, "skill", "add", "docker-slim", "--description", "Shrink Docker images with multi-stage builds.")
	mustRun(t, 0, "-C", reg, "embed")
	idx := filepath.Join(embedcache.CacheDir(reg, mustBuiltin(t).ID()), "index.json")
	raw, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	tampered := false
	for _, r := range doc["rows"].([]any) {
		if row := r.(map[string]any); row["skill"] == embedcache.AnchorSkill {
			row["sha256"], tampered = strings.Repeat("0", 64), true
		}
	}
	if !tampered {
		t.Fatalf("no %s row in %s", embedcache.AnchorSkill, raw)
	}
	if raw, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "commit", "-qam", "tamper with the anchor")
	git.Dir = reg
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	out := mustRun(t, exitProblems, "-C", reg, "cache", "verify")
	if !strings.Contains(out, "\tstale\n") || !strings.Contains(out, "the .anchor row's text hash is not the drift anchor's") ||
		!strings.Contains(out, "(fix: megagit embed)") {
		t.Fatalf("verify of a tampered anchor row:\n%s", out)
	}
	mustRun(t, 0, "-C", reg, "embed")
	if out := mustRun(t, 0, "-C", reg, "cache", "verify"); !strings.Contains(out, "\tok (1.000)\n") {
		t.Fatalf("verify after embed:\n%s", out)
	}
}

func mustBuiltin(t *testing.T) models.Embedder {
	m, err := models.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEmbedBar(t *testing.T) {
	var buf bytes.Buffer
	bar := newEmbedBar(&buf, 150, true)
	for _, n := range []int{64, 128, 150} {
		bar(n)
	}
	if s := buf.String(); !strings.Contains(s, "embedding") || !strings.Contains(s, "150/150") {
		t.Fatalf("bar output %q", s)
	}
	buf.Reset()
	newEmbedBar(&buf, 150, false)(150) // not a terminal: silent
	newEmbedBar(&buf, 10, true)(10)    // too little work to show a bar
	if buf.Len() != 0 {
		t.Fatalf("bar drawn: %q", buf.String())
	}
}
