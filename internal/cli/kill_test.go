package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Kill tests for the commands that write besides `megagit verdict`: sync
// (a merge commit, then a push) and the stop hook. Each kills the command
// at random moments, then checks that doctor passes, or that the one
// repair it suggests makes it pass, and that no verdict is lost or doubled.

// killer kills megagit processes at random moments within a window that
// follows how long the command takes on this (possibly busy) machine, so
// most runs die somewhere in the middle and a few finish.
type killer struct {
	rng    *rand.Rand
	window time.Duration
	start  time.Time
}

func newKiller(t *testing.T, what string, full time.Duration) *killer {
	seed := uint64(time.Now().UnixNano())
	window := max(30*time.Millisecond, full*5/4)
	t.Logf("seed %d; %s takes %s, kills within %s at first", seed, what, full, window)
	return &killer{rng: rand.New(rand.NewPCG(seed, 11)), window: window, start: time.Now()}
}

// more bounds a kill loop: at least lo rounds, at most hi, and no new
// round once budget has passed.
func (k *killer) more(i, lo, hi int, budget time.Duration) bool {
	return i < lo || i < hi && time.Since(k.start) < budget
}

// megagitCmd is a megagit process in its own process group, so the test
// can wait for the git children of a file:// fetch or push too.
func megagitCmd(env []string, dir, stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command("megagit", args...)
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return cmd
}

// run starts cmd, SIGKILLs it at a random moment, and reports whether it
// finished successfully first. Only megagit is killed: the git-receive-pack
// of a file:// push stands for the server side of a network remote, which
// a dying client does not kill (killed with SIGKILL itself, it would leave
// refs/heads/main.lock behind and git refuses every later push).
func (k *killer) run(t *testing.T, cmd *exec.Cmd) bool {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	time.Sleep(time.Duration(k.rng.Int64N(int64(k.window))))
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	took := time.Since(began)
	waitGroup(t, cmd.Process.Pid)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); err != nil && ok && !ws.Signaled() {
		t.Fatalf("megagit %s failed before the kill: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out.String())
	}
	if err == nil {
		k.window = max(30*time.Millisecond, (k.window+took*5/4)/2)
	} else {
		k.window = k.window * 11 / 10
	}
	return err == nil
}

// waitGroup waits until the orphaned children of a killed megagit are gone.
func waitGroup(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("children of a killed megagit still run after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func timed(t *testing.T, env []string, dir, stdin string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	cmd := megagitCmd(env, dir, stdin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("megagit %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return time.Since(start)
}

// assertRepairable: doctor passes, or the repair it names makes it pass;
// the work tree is clean and git finds the object store sound.
func assertRepairable(t *testing.T, env []string, dir string) {
	t.Helper()
	if out, err := megagitProc(t, env, "-C", dir, "doctor", "--offline"); err != nil {
		t.Logf("doctor before repair:\n%s", out)
		switch {
		case strings.Contains(out, "megagit doctor --fix"):
			mustMegagit(t, env, "-C", dir, "doctor", "--fix", "--offline")
		case strings.Contains(out, "megagit resync"):
			mustMegagit(t, env, "-C", dir, "resync")
		default:
			t.Fatalf("doctor fails and suggests no repair:\n%s", out)
		}
	}
	mustMegagit(t, env, "-C", dir, "doctor", "--offline")
	gitOut(t, env, dir, "fsck", "--no-progress")
	if out := gitOut(t, env, dir, "status", "--porcelain"); out != "" {
		t.Fatalf("work tree of %s not clean after repair:\n%s", dir, out)
	}
}

// gitOut runs the real git for assertions (megagit itself never does).
func gitOut(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// wantReasons checks that the registry's ledgers hold each verdict once
// and exactly the given reasons.
func wantReasons(t *testing.T, dir string, want map[string]bool) {
	t.Helper()
	ids, reasons := ledgerIDs(t, dir)
	for id, n := range ids {
		if n != 1 {
			t.Fatalf("%s: verdict %s is in the ledger %d times", dir, id, n)
		}
	}
	for r := range want {
		if !reasons[r] {
			t.Errorf("%s: verdict %q is lost", dir, r)
		}
	}
	for r := range reasons {
		if !want[r] {
			t.Errorf("%s: unexpected verdict %q", dir, r)
		}
	}
	if len(ids) != len(want) {
		t.Fatalf("%s: %d verdicts, want %d", dir, len(ids), len(want))
	}
}

// teamOfTwo makes a bare file:// remote holding a registry with skill busy,
// the registry that created it and a clone.
func teamOfTwo(t *testing.T, env []string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("file:// remotes need git-upload-pack")
	}
	base := t.TempDir()
	bare := filepath.Join(base, "remote.git")
	gitOut(t, env, base, "init", "-q", "--bare", bare)
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	mustMegagit(t, env, "init", a)
	mustMegagit(t, env, "-C", a, "skill", "add", "busy", "--description", busyDescription)
	mustMegagit(t, env, "-C", a, "remote", "add", "origin", "file://"+bare)
	mustMegagit(t, env, "-C", a, "sync")
	mustMegagit(t, env, "clone", "file://"+bare, b)
	return a, b
}

const busyDescription = "Find why tests pass locally but fail randomly in CI: ordering, shared state, time. Use when a test is flaky or fails intermittently."

// Kill `megagit sync` while it merges a teammate's verdicts and pushes:
// the next sync finishes the job, doctor passes (after at most the repair
// it names), and both clones end with every verdict exactly once.
func TestKilledSyncsLoseNoVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	env := procEnv(t)
	a, b := teamOfTwo(t, env)
	want := map[string]bool{}
	verdict := func(dir, reason string) {
		mustMegagit(t, env, "-C", dir, "verdict", "busy", "HELPFUL", "--reason", reason)
		want[reason] = true
	}
	// Time a sync that has to merge: both sides have a new verdict.
	verdict(b, "b-timed")
	mustMegagit(t, env, "-C", b, "sync")
	verdict(a, "a-timed")
	k := newKiller(t, "a merging sync", timed(t, env, a, "", "sync"))

	rounds, killed := 0, 0
	for i := 0; k.more(i, 4, 15, 6*time.Second); i++ {
		rounds++
		verdict(b, fmt.Sprintf("b%02d", i))
		mustMegagit(t, env, "-C", b, "sync")
		verdict(a, fmt.Sprintf("a%02d", i))
		if !k.run(t, megagitCmd(env, a, "", "sync")) {
			killed++
		}
		if i%4 == 3 {
			assertRepairable(t, env, a)
		}
	}
	t.Logf("%d of %d syncs killed", killed, rounds)
	assertRepairable(t, env, a)
	mustMegagit(t, env, "-C", a, "sync")
	mustMegagit(t, env, "-C", b, "sync")
	assertRepairable(t, env, a)
	assertRepairable(t, env, b)
	wantReasons(t, a, want)
	wantReasons(t, b, want)
	if ha, hb := gitOut(t, env, a, "rev-parse", "HEAD"), gitOut(t, env, b, "rev-parse", "HEAD"); ha != hb {
		t.Fatalf("clones differ after syncing: %s vs %s", ha, hb)
	}
}

// session writes a Claude Code transcript in which the assistant reports
// a verdict on busy, and the prompt and stop hook inputs for it.
func session(t *testing.T, dir, id, reason string) (prompt, stop string) {
	t.Helper()
	transcript := filepath.Join(t.TempDir(), id+".jsonl")
	lines := fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"my go tests fail randomly on CI but pass on my laptop"},"uuid":"u-%[1]s","sessionId":"%[1]s"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Fixed. <skill-used name=\"busy\" verdict=\"HELPFUL\" reason=\"%[2]s\"/>"}]},"uuid":"a-%[1]s","sessionId":"%[1]s"}
`, id, reason)
	if err := os.WriteFile(transcript, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	prompt = fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"prompt":"my go tests fail randomly on CI but pass on my laptop","hook_event_name":"UserPromptSubmit"}`, id, transcript, dir)
	stop = fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":false}`, id, transcript, dir)
	return prompt, stop
}

// injectSession runs the prompt hook, which records that the session was
// shown busy. A loaded machine can miss the hook's deadline (it then prints
// nothing): the deadline is raised and a miss retried.
func injectSession(t *testing.T, env []string, dir, prompt string) {
	t.Helper()
	env = append(env[:len(env):len(env)], "MEGAGIT_HOOK_DEADLINE_MS=10000")
	var out []byte
	var err error
	for try := 0; try < 3; try++ {
		out, err = megagitCmd(env, dir, prompt, "hook", "prompt", "--agent", "claude").CombinedOutput()
		if err == nil && strings.Contains(string(out), "skills/busy/SKILL.md") {
			return
		}
	}
	t.Fatalf("hook prompt did not inject busy: %v\n%s", err, out)
}

// Kill `megagit hook stop` at random moments: doctor passes (after at most
// the repair it names), a hook that finished recorded its verdict, and
// running the hook again for every session records each verdict once.
func TestKilledStopHooksLoseNoVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	env := procEnv(t)
	dir := filepath.Join(t.TempDir(), "reg")
	mustMegagit(t, env, "init", dir)
	mustMegagit(t, env, "-C", dir, "skill", "add", "busy", "--description", busyDescription)

	prompt, stop := session(t, dir, "sess-timed", "stop-timed")
	injectSession(t, env, dir, prompt)
	k := newKiller(t, "a stop hook", timed(t, env, dir, stop, "hook", "stop", "--agent", "claude"))

	want := map[string]bool{"stop-timed": true}
	stops := map[string]string{}
	finished := map[string]bool{}
	rounds := 0
	for i := 0; k.more(i, 5, 25, 5*time.Second); i++ {
		rounds++
		reason := fmt.Sprintf("stop-%02d", i)
		prompt, stop := session(t, dir, fmt.Sprintf("sess-%02d", i), reason)
		injectSession(t, env, dir, prompt)
		want[reason], stops[reason] = true, stop
		if k.run(t, megagitCmd(env, dir, stop, "hook", "stop", "--agent", "claude")) {
			finished[reason] = true
		}
	}
	t.Logf("%d of %d stop hooks killed", rounds-len(finished), rounds)
	assertRepairable(t, env, dir)
	_, reasons := ledgerIDs(t, dir)
	for r := range finished {
		if !reasons[r] {
			t.Errorf("stop hook for %s finished but its verdict is not in the ledger", r)
		}
	}
	// The agent's next stop runs the hook again on the same transcript.
	for _, stop := range stops {
		if out, err := megagitCmd(env, dir, stop, "hook", "stop", "--agent", "claude").CombinedOutput(); err != nil {
			t.Fatalf("hook stop: %v\n%s", err, out)
		}
	}
	assertRepairable(t, env, dir)
	wantReasons(t, dir, want)
}

// Verdicts, stop hooks and syncs running at once on both clones of a
// team lose nothing: after a last sync on each side, both hold every
// verdict exactly once. (sync_concurrent.txtar covers one registry with an
// idle teammate; here both clones write and sync at the same time.)
func TestParallelWritersAndSyncersOnTwoClones(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	env := procEnv(t)
	a, b := teamOfTwo(t, env)
	var mu sync.Mutex
	want := map[string]bool{}
	var jobs []*exec.Cmd
	for _, dir := range []string{a, b} {
		side := filepath.Base(dir)
		for i := 0; i < 3; i++ {
			reason := fmt.Sprintf("%s-stop-%d", side, i)
			prompt, stop := session(t, dir, fmt.Sprintf("sess-%s-%d", side, i), reason)
			injectSession(t, env, dir, prompt)
			want[reason] = true
			jobs = append(jobs, megagitCmd(env, dir, stop, "hook", "stop", "--agent", "claude"))
		}
		for i := 0; i < 6; i++ {
			reason := fmt.Sprintf("%s-verdict-%d", side, i)
			want[reason] = true
			jobs = append(jobs, megagitCmd(env, dir, "", "verdict", "busy", []string{"HELPFUL", "NEUTRAL", "HARMFUL"}[i%3], "--reason", reason))
		}
		for i := 0; i < 3; i++ {
			jobs = append(jobs, megagitCmd(env, dir, "", "sync"))
		}
	}
	rand.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	var wg sync.WaitGroup
	for _, cmd := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := cmd.CombinedOutput()
			if err != nil && cmd.Args[1] != "sync" {
				mu.Lock()
				defer mu.Unlock()
				t.Errorf("megagit %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
			}
			// A sync may lose the push race and fail after its retries; the
			// last syncs below must then succeed.
		}()
	}
	wg.Wait()
	for _, dir := range []string{a, b, a} {
		mustMegagit(t, env, "-C", dir, "sync")
	}
	for _, dir := range []string{a, b} {
		assertRepairable(t, env, dir)
		wantReasons(t, dir, want)
	}
}
