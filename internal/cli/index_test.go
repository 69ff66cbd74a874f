package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/index"
)

func TestIndexFlags(t *testing.T) {
	testFlags(t, newIndexCmd, func(o *indexOptions) { o.app = nil }, []flagCase[indexOptions]{
		{name: "defaults", args: nil, want: indexOptions{}},
		{name: "as JSON", args: []string{"--json"}, want: indexOptions{json: true}},
		{name: "as the prompt hook runs it", args: []string{"--background"}, want: indexOptions{background: true}},
		{name: "an argument", args: []string{"skills"}, wantErr: "expects no arguments"},
	})
}

// `megagit index --background` is what the prompt hook starts: it prints
// nothing and exits 0 whatever happens, leaves the work to a refresh that
// already holds the lock, and says what went wrong in hook.log.
func TestIndexBackground(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_AUTHOR_NAME", "Test User")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	reg := filepath.Join(t.TempDir(), "reg")
	megagit := func(args ...string) (code int, out, errOut string) {
		var o, e bytes.Buffer
		code = run(append([]string{"-C", reg}, args...), nil, &o, &e)
		return code, o.String(), e.String()
	}
	if code := run([]string{"init", reg}, nil, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("init failed")
	}
	if code, _, e := megagit("skill", "add", "alpha", "--description", "Speed up docker builds."); code != 0 {
		t.Fatalf("skill add: %s", e)
	}
	file := filepath.Join(reg, ".megagit", "local", index.IndexFile)
	quiet := func(what string) {
		t.Helper()
		if code, o, e := megagit("index", "--background"); code != 0 || o != "" || e != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want 0 and nothing", what, code, o, e)
		}
	}

	lock, err := local.Open(reg, 0).AcquireFile(index.RefreshLock, 0)
	if err != nil {
		t.Fatal(err)
	}
	quiet("another refresh holds the lock")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("built the index while another refresh held the lock: %v", err)
	}
	lock.Release()
	quiet("the lock is free")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no index after the refresh: %v", err)
	}

	// A bad setting is set aside, as the hook does, and logged; a config
	// that is not YAML stops the refresh, logged.
	cfg := filepath.Join(reg, ".megagit", "config.yaml")
	if err := os.WriteFile(cfg, []byte("hook:\n  refresh: sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	quiet("a bad setting")
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no index after the refresh with a bad setting: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(reg, ".megagit", "local", hook.LogFile))
	if !strings.Contains(string(log), "megagit index: config: field hook.refresh") || !strings.Contains(string(log), "using the default, background") {
		t.Fatalf("hook.log does not say the bad setting was set aside:\n%s", log)
	}
	if err := os.WriteFile(cfg, []byte("hook: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	quiet("a broken config")
	log, _ = os.ReadFile(filepath.Join(reg, ".megagit", "local", hook.LogFile))
	if strings.Count(string(log), "megagit index: ") != 2 {
		t.Fatalf("hook.log does not say why the refresh failed:\n%s", log)
	}
}
