// Package testhome gives a package's tests a home of their own: every
// package's TestMain runs its tests through it (internal/archtest checks),
// so no test reads or writes the skills, registries, settings or git
// config of the person running them, nor runs the megagit or megagit-hook
// they installed.
package testhome

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// M is what a TestMain runs: *testing.M, or testscript's TestingM.
type M interface{ Run() int }

// Main is a package's TestMain: its tests, isolated.
func Main(m *testing.M) { os.Exit(Isolate(m).Run()) }

// Isolate isolates this process now and returns m, whose Run also removes
// the temporary home afterwards. A package whose TestMain does more (builds
// binaries, dispatches testscript commands) calls it first.
//
// Isolated are: HOME (and USERPROFILE), XDG_CONFIG_HOME, XDG_DATA_HOME,
// XDG_CACHE_HOME and XDG_STATE_HOME, all in one new empty folder; git's
// global and system config (none is read) and identity variables
// (GIT_AUTHOR_*, GIT_COMMITTER_*); and PATH, on which every folder
// holding a megagit or megagit-hook is replaced by one holding the same
// programs but those. Go's own folders (GOPATH, GOCACHE, GOMODCACHE, GOENV)
// and a pyenv shim's PYENV_ROOT are pinned where they were, so the go and
// python3 the tests run keep working.
//
// Cleared too are megagit's settings from the environment: every
// MEGAGIT_* and MEGA_EVAL_* variable but the tests' own inputs (keptEnv),
// so a MEGAGIT_ROUTE_TOP_K the person running the tests exported changes
// no result; and the umask is 022, so files a test writes get the modes
// a test expects whatever the shell's umask.
func Isolate(m M) M {
	done, err := isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		os.Exit(1)
	}
	return run{m, done}
}

type run struct {
	m    M
	done func()
}

func (r run) Run() int {
	defer r.done()
	return r.m.Run()
}

func isolate() (func(), error) {
	pinTools()
	home, err := os.MkdirTemp("", "megagit-test-home-")
	if err != nil {
		return nil, err
	}
	done := func() {
		// Tests may leave read-only folders behind (a module cache).
		filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
		os.RemoveAll(home)
	}
	set := map[string]string{
		"HOME":            home,
		"USERPROFILE":     home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		// git reads no /etc/gitconfig; its global config is the new home's.
		"GIT_CONFIG_NOSYSTEM": "1",
	}
	// The go command a test runs records no telemetry there: its uploader
	// outlives the test and would make the folder again once removed.
	tel := filepath.Join(set["XDG_CONFIG_HOME"], "go", "telemetry")
	if err := os.MkdirAll(tel, 0o700); err != nil {
		done()
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tel, "mode"), []byte("off"), 0o600); err != nil {
		done()
		return nil, err
	}
	path, err := cleanPath(os.Getenv("PATH"), filepath.Join(home, ".path"))
	if err != nil {
		done()
		return nil, err
	}
	set["PATH"] = path
	for k, v := range set {
		os.Setenv(k, v)
	}
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE"} {
		os.Unsetenv(k)
	}
	clearSettings()
	setUmask()
	return done, nil
}

// keptEnv are the MEGAGIT_* variables that are the tests' inputs, not
// megagit's settings: the ONNX Runtime library the tests load (a tool,
// found before HOME moves) and whether its absence fails, and the
// folders and switches of opt-in tests and benchmarks.
var keptEnv = map[string]bool{
	"MEGAGIT_ONNXRUNTIME_LIB":  true,
	"MEGAGIT_REQUIRE_ONNX":     true,
	"MEGAGIT_TEST_MODEL_DIRS":  true,
	"MEGAGIT_BENCH_REGISTRY":   true,
	"MEGAGIT_BENCH_MODEL_DIR":  true,
	"MEGAGIT_BENCH_PROFILE":    true,
	"MEGAGIT_SYNC_BENCH":       true,
	"MEGAGIT_GEN_REGISTRY":     true,
	"MEGAGIT_GEN_SKILLS":       true,
	"MEGAGIT_SKILLS_DEV":       true,
	"MEGAGIT_COSINE_MODEL":     true,
	"MEGAGIT_MINE_PAIRS":       true,
	"MEGAGIT_MINE_N":           true,
	"MEGAGIT_MINE_MAXPOST":     true,
	"MEGAGIT_UPDATE_TOKENIZER": true,
}

// clearSettings unsets every MEGAGIT_* and MEGA_EVAL_* variable not in
// keptEnv.
func clearSettings() {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if (strings.HasPrefix(k, "MEGAGIT_") || strings.HasPrefix(k, "MEGA_EVAL_")) && !keptEnv[k] {
			os.Unsetenv(k)
		}
	}
}

// pinTools keeps the go and python3 on PATH finding what they found
// before HOME moved: Go's module and build caches and `go env -w`
// settings, pyenv's root.
func pinTools() {
	if out, err := exec.Command("go", "env", "GOPATH", "GOCACHE", "GOMODCACHE", "GOENV").Output(); err == nil {
		vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		for i, k := range []string{"GOPATH", "GOCACHE", "GOMODCACHE", "GOENV"} {
			if i < len(vals) && vals[i] != "" && os.Getenv(k) == "" {
				os.Setenv(k, vals[i])
			}
		}
	}
	if os.Getenv("PYENV_ROOT") == "" {
		if h, err := os.UserHomeDir(); err == nil {
			if st, err := os.Stat(filepath.Join(h, ".pyenv")); err == nil && st.IsDir() {
				os.Setenv("PYENV_ROOT", filepath.Join(h, ".pyenv"))
			}
		}
	}
}

// cleanPath is path without megagit's programs: each folder holding one is
// replaced by a folder under shadows linking to its other entries.
func cleanPath(path, shadows string) (string, error) {
	dirs := filepath.SplitList(path)
	for i, dir := range dirs {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil || !holdsMegagit(entries) {
			continue
		}
		shadow := filepath.Join(shadows, fmt.Sprint(i))
		if err := os.MkdirAll(shadow, 0o700); err != nil {
			return "", err
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if isMegagit(e.Name()) {
				continue
			}
			if err := os.Symlink(filepath.Join(abs, e.Name()), filepath.Join(shadow, e.Name())); err != nil && !errors.Is(err, os.ErrExist) {
				return "", err
			}
		}
		dirs[i] = shadow
	}
	return strings.Join(dirs, string(filepath.ListSeparator)), nil
}

func holdsMegagit(entries []os.DirEntry) bool {
	for _, e := range entries {
		if isMegagit(e.Name()) {
			return true
		}
	}
	return false
}

// isMegagit is a program of megagit's: megagit, megagit-hook, with or
// without .exe.
func isMegagit(name string) bool {
	name = strings.ToLower(strings.TrimSuffix(strings.ToLower(name), ".exe"))
	return name == "megagit" || name == "megagit-hook"
}
