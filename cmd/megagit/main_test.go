package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"megagit": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// expect-exit N ARGS...: run megagit ARGS and fail unless it exits N
		// (testscript itself only tells zero from non-zero).
		"expect-exit": func() {
			if len(os.Args) < 2 {
				fmt.Fprintln(os.Stderr, "usage: expect-exit N megagit-args...")
				os.Exit(2)
			}
			want, err := strconv.Atoi(os.Args[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, "expect-exit: bad code:", err)
				os.Exit(2)
			}
			got := run(os.Args[2:], os.Stdin, os.Stdout, os.Stderr)
			if got != want {
				fmt.Fprintf(os.Stderr, "expect-exit: megagit exited %d, want %d\n", got, want)
				os.Exit(1)
			}
			os.Exit(0)
		},
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(e *testscript.Env) error {
			// HOME lives outside $WORK so scripts can assert a clean `git status`.
			home, err := os.MkdirTemp("", "megagit-home-")
			if err != nil {
				return err
			}
			e.Defer(func() { os.RemoveAll(home) })
			e.Setenv("HOME", home)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("BENCH", benchDir())
			return os.WriteFile(filepath.Join(home, ".gitconfig"),
				[]byte("[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bench":
				_, err := os.Stat(benchDir())
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// benchDir is ../shared/bench next to the repository, when present.
func benchDir() string {
	abs, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "bench"))
	return abs
}
