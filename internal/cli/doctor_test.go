package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
)

// procEnv is an environment for megagit child processes: a private HOME
// with a git identity.
func procEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	cfg := "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "MEGAGIT_USER_REGISTRY=", "GIT_CONFIG_NOSYSTEM=1")
}

// megagitProc runs the megagit command (the test binary, through the
// PATH entry testscript.Main sets up) and returns its combined output.
func megagitProc(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("megagit", args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustMegagit(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, err := megagitProc(t, env, args...)
	if err != nil {
		t.Fatalf("megagit %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// ledgerIDs reads a registry's ledgers: id -> how many lines hold it, and
// the reason of each.
func ledgerIDs(t *testing.T, dir string) (map[string]int, map[string]bool) {
	t.Helper()
	ids, reasons := map[string]int{}, map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, ".megagit", "ledger", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			entries, problems := ledger.Parse(f, []byte(l))
			if len(problems) > 0 {
				t.Fatalf("unreadable ledger line after a crash: %v", problems)
			}
			for _, e := range entries {
				ids[e.ID]++
				reasons[e.Reason] = true
			}
		}
	}
	return ids, reasons
}

// Kill `megagit verdict` at random moments: afterwards one command makes
// the registry consistent, and the ledger holds exactly the verdicts that
// were committed, each once, including every one whose process reported
// success. The same from a linked worktree (git worktree add), whose
// branch lives in the main .git folder.
func TestKilledVerdictsLeaveARepairableRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	t.Run("registry", func(t *testing.T) {
		env := procEnv(t)
		dir := filepath.Join(t.TempDir(), "reg")
		mustMegagit(t, env, "init", dir)
		mustMegagit(t, env, "-C", dir, "skill", "add", "s", "--description", "A skill.")
		killVerdicts(t, env, dir)
	})
	t.Run("linked worktree", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git worktree add needs git")
		}
		env := procEnv(t)
		base := t.TempDir()
		dir, wt := filepath.Join(base, "reg"), filepath.Join(base, "wt")
		mustMegagit(t, env, "init", dir)
		mustMegagit(t, env, "-C", dir, "skill", "add", "s", "--description", "A skill.")
		gitOut(t, env, dir, "worktree", "add", "-q", "-b", "feature", wt)
		killVerdicts(t, env, wt)
		// Every verdict commit is on the branch git reads, from the main
		// work tree too, and survives gc.
		gitOut(t, env, dir, "gc", "-q", "--prune=now")
		gitOut(t, env, dir, "fsck", "--strict", "--no-progress")
		ids, _ := ledgerIDs(t, wt)
		onBranch := gitOut(t, env, dir, "log", "--format=%B", "feature")
		for id := range ids {
			if !strings.Contains(onBranch, "Megagit-Id: "+id) {
				t.Fatalf("verdict %s is in the worktree's ledger but not on branch feature", id)
			}
		}
	})
	t.Run("project on its own branch", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("the project is made with git")
		}
		env := procEnv(t)
		dir := filepath.Join(t.TempDir(), "proj")
		gitOut(t, env, t.TempDir(), "init", "-q", dir)
		if err := os.WriteFile(filepath.Join(dir, "app.go"), []byte("package app\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitOut(t, env, dir, "add", "app.go")
		gitOut(t, env, dir, "commit", "-q", "-m", "the app")
		gitOut(t, env, dir, "checkout", "-q", "-b", "feature/login")
		head := gitOut(t, env, dir, "rev-parse", "HEAD")
		mustMegagit(t, env, "-C", dir, "init", ".")
		mustMegagit(t, env, "-C", dir, "skill", "add", "s", "--description", "A skill.")
		killVerdicts(t, env, dir)
		if got := gitOut(t, env, dir, "rev-parse", "HEAD"); got != head {
			t.Fatalf("feature/login moved from %s to %s", head, got)
		}
		gitOut(t, env, dir, "fsck", "--strict", "--no-progress")
		ids, _ := ledgerIDs(t, dir)
		onBranch := gitOut(t, env, dir, "log", "--format=%B", "megagit")
		for id := range ids {
			if !strings.Contains(onBranch, "Megagit-Id: "+id) {
				t.Fatalf("verdict %s is in the ledger but not on branch megagit", id)
			}
		}
	})
}

// killVerdicts kills `megagit verdict s` in dir at random moments, repairs
// with doctor, and checks every committed verdict is in the ledger once.
func killVerdicts(t *testing.T, env []string, dir string) {
	t.Helper()
	// Kill anywhere from start-up to the end of a full write: time one.
	start := time.Now()
	mustMegagit(t, env, "-C", dir, "verdict", "s", "HELPFUL", "--reason", "timed")
	full := time.Since(start)
	window := max(30*time.Millisecond, full*5/4)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d; a verdict takes %s, kills within %s", seed, full, window)
	succeeded := map[string]bool{}
	killed := 0
	for i := 0; i < 30; i++ {
		reason := fmt.Sprintf("k%02d", i)
		v := []string{"HELPFUL", "NEUTRAL"}[i%2]
		cmd := exec.Command("megagit", "-C", dir, "verdict", "s", v, "--reason", reason)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil {
			succeeded[reason] = true
		} else {
			killed++
		}
	}
	t.Logf("%d of 30 verdict processes killed", killed)
	if out, err := megagitProc(t, env, "-C", dir, "doctor", "--offline"); err != nil {
		t.Logf("doctor before repair:\n%s", out)
		mustMegagit(t, env, "-C", dir, "doctor", "--fix", "--offline")
	}
	mustMegagit(t, env, "-C", dir, "doctor", "--offline")

	ids, reasons := ledgerIDs(t, dir)
	for id, n := range ids {
		if n != 1 {
			t.Fatalf("verdict %s is in the ledger %d times", id, n)
		}
	}
	for r := range succeeded {
		if !reasons[r] {
			t.Fatalf("verdict %s reported success but is not in the ledger", r)
		}
	}
	reg, err := registry.Open(dir, registry.Options{Roots: []string{"skills"}})
	if err != nil {
		t.Fatal(err)
	}
	log, err := reg.Log("s", 0)
	if err != nil {
		t.Fatal(err)
	}
	committed := map[string]bool{}
	for _, e := range log {
		if e.Kind == "verdict" {
			committed[e.ID] = true
		}
	}
	if len(committed) != len(ids) {
		t.Fatalf("%d verdict commits but %d ledger lines", len(committed), len(ids))
	}
	for id := range ids {
		if !committed[id] {
			t.Fatalf("ledger line %s has no verdict commit", id)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain").CombinedOutput(); err == nil && len(out) > 0 {
		t.Fatalf("work tree not clean after repair:\n%s", out)
	}
}

func TestDoctorFlags(t *testing.T) {
	testFlags(t, newDoctorCmd, func(o *doctorOptions) { o.app = nil }, []flagCase[doctorOptions]{
		{name: "defaults", want: doctorOptions{timeout: 5 * time.Second}},
		{name: "json and fix", args: []string{"--json", "--fix"}, want: doctorOptions{json: true, fix: true, timeout: 5 * time.Second}},
		{name: "offline", args: []string{"--offline"}, want: doctorOptions{offline: true, timeout: 5 * time.Second}},
		{name: "timeout", args: []string{"--timeout", "30s"}, want: doctorOptions{timeout: 30 * time.Second}},
		{name: "timeout without unit", args: []string{"--timeout", "30"}, wantErr: `invalid argument "30"`},
		{name: "an argument", args: []string{"extra"}, wantErr: "expects no arguments"},
		{name: "unknown flag", args: []string{"--repair"}, wantErr: "unknown flag: --repair"},
	})
}
