package testhome_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/megagit/megagit/internal/testhome"
)

// before is what the environment was before testhome moved it.
var before struct {
	home, gocache, tools string
}

// hostileEnv are settings a user running the tests may have exported.
var hostileEnv = map[string]string{
	"MEGAGIT_ROUTE_TOP_K":   "1",
	"MEGAGIT_HOOK_SHADOW":   "true",
	"MEGAGIT_TEAM_REGISTRY": "/nonexistent",
	"MEGA_EVAL_BLEND":       "false",
	"GIT_AUTHOR_NAME":       "Hostile",
}

// TestMain puts a folder on PATH holding a megagit, a megagit-hook and
// another program, as a user's ~/go/bin might, exports megagit settings
// and the tests' own inputs and a umask of 077, then isolates.
func TestMain(m *testing.M) {
	for k, v := range hostileEnv {
		os.Setenv(k, v)
	}
	os.Setenv("MEGAGIT_REQUIRE_ONNX", "1")
	os.Setenv("MEGAGIT_ONNXRUNTIME_LIB", "/opt/ort/libonnxruntime.so")
	setUmask077()
	tools, err := os.MkdirTemp("", "testhome-tools-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range []string{"megagit", "megagit-hook", "other-tool"} {
		if err := os.WriteFile(filepath.Join(tools, name), []byte("#!/bin/sh\nexit 97\n"), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	before.home, _ = os.UserHomeDir()
	before.tools = tools
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		before.gocache = strings.TrimSpace(string(out))
	}
	os.Setenv("PATH", tools+string(filepath.ListSeparator)+os.Getenv("PATH"))
	code := testhome.Isolate(m).Run()
	os.RemoveAll(tools)
	os.Exit(code)
}

func TestHomeIsItsOwn(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	if home == before.home {
		t.Fatalf("HOME is still %s", home)
	}
	ents, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != ".config" && e.Name() != ".path" {
			t.Errorf("the new home holds %s", e.Name())
		}
	}
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		if v := os.Getenv(k); !strings.HasPrefix(v, home+string(filepath.Separator)) {
			t.Errorf("%s = %q, not in %s", k, v, home)
		}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") != "1" {
		t.Error("git would read the system config")
	}
}

func TestPathHasNoMegagit(t *testing.T) {
	for _, name := range []string{"megagit", "megagit-hook"} {
		if p, err := exec.LookPath(name); err == nil {
			t.Errorf("%s is still on PATH: %s", name, p)
		}
	}
	p, err := exec.LookPath("other-tool")
	if err != nil {
		t.Fatalf("other-tool, beside megagit on PATH, is gone: %v", err)
	}
	if target, err := filepath.EvalSymlinks(p); err != nil || filepath.Dir(target) != before.tools {
		t.Errorf("other-tool is %s (%s, %v), want the one in %s", p, target, err, before.tools)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Errorf("git is gone from PATH: %v", err)
	}
}

func TestGoKeepsItsCache(t *testing.T) {
	if before.gocache == "" {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != before.gocache {
		t.Errorf("GOCACHE = %s, want %s", got, before.gocache)
	}
}

func TestSettingsAreCleared(t *testing.T) {
	for k := range hostileEnv {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%s is still set", k, v)
		}
	}
	for k, want := range map[string]string{"MEGAGIT_REQUIRE_ONNX": "1", "MEGAGIT_ONNXRUNTIME_LIB": "/opt/ort/libonnxruntime.so"} {
		if got := os.Getenv(k); got != want {
			t.Errorf("%s = %q, want the harness's %q kept", k, got, want)
		}
	}
}

func TestUmaskIsFixed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no umask")
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o644 {
		t.Errorf("a file written 0666 is %v, want -rw-r--r-- (umask 022)", got)
	}
}
