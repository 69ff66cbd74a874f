package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/megagit/megagit/internal/testhome"
	"github.com/megagit/megagit/models"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCommands are the commands scripts run: the test binary again,
// under another name.
var scriptCommands = map[string]func(){
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
}

func TestMain(m *testing.M) {
	if _, ok := scriptCommands[strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")]; ok {
		// One of a script's commands: its environment is the script's.
		testscript.Main(m, scriptCommands)
	}
	// Every test runs in a home and PATH of its own (the scripts in
	// homes of their own below that). The ONNX Runtime library is a tool
	// the tests need: its default place is in the user's data folder, so
	// it is found before HOME moves.
	os.Setenv("MEGAGIT_ONNXRUNTIME_LIB", onnxRuntimeLib())
	testscript.Main(testhome.Isolate(m), scriptCommands)
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
			e.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
			e.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			e.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			// REALSKILLS holds skills/ with the published skills of
			// testdata/realskills, for scripts that evaluate real files.
			real, err := filepath.Abs(filepath.Join("..", "..", "testdata", "realskills"))
			if err != nil {
				return err
			}
			e.Setenv("REALSKILLS", real)
			// HISTORY is a home folder with the real agents' session files
			// (learn/history/testdata), for scripts about learn history.
			hist, err := filepath.Abs(filepath.Join("..", "..", "learn", "history", "testdata", "home"))
			if err != nil {
				return err
			}
			e.Setenv("HISTORY", hist)
			// A loaded test machine must not cut a prompt hook short, nor
			// the refresh of the compiled index it waits for within half
			// its deadline; scripts about the deadline set their own.
			e.Setenv("MEGAGIT_HOOK_DEADLINE_MS", "20000")
			// The runtime's path, resolved before HOME moved (TestMain);
			// onnx-free scripts never load it.
			e.Setenv("MEGAGIT_ONNXRUNTIME_LIB", onnxRuntimeLib())
			// A server the prompt hook starts (ONNX models) is killed when
			// the script ends, and stops by itself after two idle minutes
			// should that fail.
			e.Setenv("MEGAGIT_SERVE_IDLE_MS", "120000")
			e.Defer(func() { stopServers(e.WorkDir) })
			return os.WriteFile(filepath.Join(home, ".gitconfig"),
				[]byte("[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"tinymodel": cmdTinyModel, "githttp": cmdGitHTTP, "mcp": cmdMCP, "stall": cmdStall, "sshkey": cmdSSHKey, "fulldisk": cmdFullDisk,
			"waitserve": cmdWaitServe, "killserve": cmdKillServe},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "onnx":
				return onnxAvailable()
			case "fulldisk":
				return canMountTmpfs()
			case "onnxbuild":
				return models.ONNXSupported, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// onnxRuntimeLib is the ONNX Runtime library tests load: the one
// MEGAGIT_ONNXRUNTIME_LIB names, else scripts/install-onnxruntime.sh's.
func onnxRuntimeLib() string {
	return models.RuntimePath(os.Getenv("MEGAGIT_ONNXRUNTIME_LIB"))
}

// onnxAvailable is the [onnx] condition: this build runs ONNX models and
// the library is there. With MEGAGIT_REQUIRE_ONNX set (CI, after
// scripts/install-onnxruntime.sh) a missing runtime fails instead of skipping.
func onnxAvailable() (bool, error) {
	missing := ""
	if !models.ONNXSupported {
		missing = "this build has no ONNX support (cgo off or -tags noonnx)"
	} else if _, err := os.Stat(onnxRuntimeLib()); err != nil {
		missing = "no ONNX Runtime at " + onnxRuntimeLib() + " (run scripts/install-onnxruntime.sh)"
	}
	if missing != "" && os.Getenv("MEGAGIT_REQUIRE_ONNX") != "" {
		return false, fmt.Errorf("MEGAGIT_REQUIRE_ONNX is set but %s", missing)
	}
	return missing == "", nil
}

// cmdTinyModel is `tinymodel DIR`: an ONNX model folder holding the tiny
// random BERT of embedcache's tests and the real all-MiniLM-L6-v2
// tokenizer.json (vectors of shape and determinism, not of meaning).
func cmdTinyModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tinymodel DIR")
	}
	dir := ts.MkAbs(args[0])
	model, err := os.ReadFile(filepath.Join("..", "..", "models", "testdata", "tiny-bert", models.ONNXModelFile))
	ts.Check(err)
	tok, err := models.DefaultTokenizerJSON()
	ts.Check(err)
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, models.ONNXModelFile), model, 0o644))
	ts.Check(os.WriteFile(filepath.Join(dir, models.TokenizerFile), tok, 0o644))
}
