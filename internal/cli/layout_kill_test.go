package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Kill `megagit layout ref` at random moments, each time in a fresh copy
// of one project: doctor passes, or `doctor --fix` makes it pass, and the
// copy ends either as it was (the branch layout, nothing moved) or moved
// exactly as a whole `layout ref` moves it — the same skills, evidence and
// ledgers on the registry branch, the project's branch and its history
// untouched. A copy left in the branch layout then moves with `layout ref`.
// Then kill `megagit layout branch` on the way back, alike.

// layoutFixture is a project whose registry commits to its branch: skills
// in two roots, verdicts on two of them.
type layoutFixture struct {
	env      []string
	template string
	// before is what the template shows: skill list, ledgers, HEAD.
	before layoutState
	// after is what a whole `layout ref` of a copy leaves.
	after layoutState
}

type layoutState struct {
	layout, skills, ledgers, head, tree, status string
}

func newLayoutFixture(t *testing.T) *layoutFixture {
	t.Helper()
	f := &layoutFixture{env: procEnv(t)}
	f.template = filepath.Join(t.TempDir(), "proj")
	gitOut(t, f.env, filepath.Dir(f.template), "init", "-q", f.template)
	for name, text := range map[string]string{"README.md": "# app\n", "main.go": "package main\n"} {
		if err := os.WriteFile(filepath.Join(f.template, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitOut(t, f.env, f.template, "add", ".")
	gitOut(t, f.env, f.template, "commit", "-qm", "the app")
	mustMegagit(t, f.env, "init", "--layout", "branch", f.template)
	for i, name := range []string{"alpha", "beta", "gamma"} {
		mustMegagit(t, f.env, "-C", f.template, "skill", "add", name, "--description",
			fmt.Sprintf("The %s skill of the layout kill test. Use when %s work is asked for.", name, name))
		if i == 2 { // a skill of the second root
			src, dst := filepath.Join(f.template, "skills", name), filepath.Join(f.template, ".claude", "skills", name)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			gitOut(t, f.env, f.template, "mv", src, dst)
			gitOut(t, f.env, f.template, "commit", "-qm", "gamma is Claude's")
		}
	}
	mustMegagit(t, f.env, "-C", f.template, "verdict", "alpha", "HELPFUL", "--reason", "it helped")
	mustMegagit(t, f.env, "-C", f.template, "verdict", "gamma", "HARMFUL", "--reason", "it misled")
	mustMegagit(t, f.env, "-C", f.template, "verdict", "alpha", "NEUTRAL", "--reason", "so so")
	mustMegagit(t, f.env, "-C", f.template, "doctor", "--offline")
	f.before = f.state(t, f.template)
	if f.before.layout != "branch" {
		t.Fatalf("the template is in the %s layout", f.before.layout)
	}
	whole := f.copy(t, "whole")
	mustMegagit(t, f.env, "-C", whole, "layout", "ref")
	f.after = f.state(t, whole)
	if f.after.layout != "ref" || f.after.skills != f.before.skills || f.after.head != f.before.head {
		t.Fatalf("a whole layout ref: %+v\nbefore: %+v", f.after, f.before)
	}
	return f
}

// copy makes a copy of the template, without its per-machine folder.
func (f *layoutFixture) copy(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(f.template), name)
	if out, err := exec.Command("cp", "-a", f.template, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".megagit", "local")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// state reads what must survive: the layout, the skills with their
// evidence, the ledgers, the project's commit, the registry branch's tree
// (in the ref layout) and what git status shows.
func (f *layoutFixture) state(t *testing.T, dir string) layoutState {
	t.Helper()
	var s layoutState
	s.layout, _, _ = strings.Cut(mustMegagit(t, f.env, "-C", dir, "layout"), "\t")
	s.layout = s.layout[strings.LastIndex(s.layout, "\n")+1:]
	for _, line := range strings.Split(mustMegagit(t, f.env, "-C", dir, "skill", "list"), "\n") {
		// Name, status and evidence of the registry's skills; not their
		// path, which the move changes, nor an old copy the agent's own
		// folder still shows (shadowed).
		if cols := strings.Split(line, "\t"); len(cols) > 6 && !strings.Contains(line, "(shadowed)") {
			s.skills += strings.Join(cols[:6], "\t") + "\n"
		}
	}
	ledgers, _ := filepath.Glob(filepath.Join(dir, ".megagit", "ledger", "*.jsonl"))
	for _, l := range ledgers {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		s.ledgers += filepath.Base(l) + "\n" + string(data)
	}
	s.head = gitOut(t, f.env, dir, "rev-parse", "HEAD")
	if s.layout == "ref" {
		s.tree = gitOut(t, f.env, dir, "rev-parse", "megagit^{tree}")
	}
	s.status = gitOut(t, f.env, dir, "status", "--porcelain")
	return s
}

// repair runs doctor; when it fails, doctor --fix, after which it must
// pass. It counts in seen what a kill left, as doctor told it.
func (f *layoutFixture) repair(t *testing.T, dir, when string, seen map[string]int) {
	t.Helper()
	out, err := megagitProc(t, f.env, "-C", dir, "doctor", "--offline")
	if strings.Contains(out, "finished an interrupted `megagit layout") {
		seen["the journal's replay finished the layout change"]++
	}
	switch {
	case err == nil:
		seen["doctor passed"]++
	case strings.Contains(out, "megagit doctor --fix"):
		fixed := mustMegagit(t, f.env, "-C", dir, "doctor", "--fix", "--offline")
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "fail\t") {
				seen["doctor --fix repaired: "+strings.Join(strings.Split(line, "\t")[:2], " ")]++
			}
		}
		if out, err := megagitProc(t, f.env, "-C", dir, "doctor", "--offline"); err != nil {
			t.Fatalf("%s: doctor fails after doctor --fix:\n%s\nthe fix said:\n%s", when, out, fixed)
		}
	default:
		t.Fatalf("%s: doctor fails and suggests no repair:\n%s", when, out)
	}
}

// untrack removes the registry's old files from the project's branch, as
// `megagit layout ref` says to.
func (f *layoutFixture) untrack(t *testing.T, dir string) {
	t.Helper()
	gitOut(t, f.env, dir, "rm", "-r", "-q", "--cached", ".megagit")
	gitOut(t, f.env, dir, "rm", "-r", "-q", "skills/alpha", "skills/beta", ".claude/skills/gamma")
	gitOut(t, f.env, dir, "commit", "-q", "-m", "megagit: the registry moved to its own branch")
}

// merged is state for the branch layout a `layout branch` leaves: its
// merge commit differs from one copy to the next (its first parent is
// each copy's own commit), its tree must not.
func (f *layoutFixture) merged(t *testing.T, dir string) layoutState {
	t.Helper()
	s := f.state(t, dir)
	s.head, s.tree = "", gitOut(t, f.env, dir, "rev-parse", "HEAD^{tree}")
	return s
}

func TestKilledLayoutMovesAreRepaired(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	f := newLayoutFixture(t)
	timedDir := f.copy(t, "timed")
	kr := newKiller(t, "a layout ref", timed(t, f.env, timedDir, "", "layout", "ref"))
	f.untrack(t, timedDir)
	kb := newKiller(t, "a layout branch", timed(t, f.env, timedDir, "", "layout", "branch"))
	kb.start = kr.start
	back := f.merged(t, timedDir)
	rounds, refsKilled, branchesKilled := 0, 0, 0
	seen := map[string]int{}
	for i := 0; kr.more(i, 10, 30, 60*time.Second); i++ {
		rounds++
		dir := f.copy(t, fmt.Sprintf("round%02d", i))
		if !kr.run(t, megagitCmd(f.env, dir, "", "layout", "ref")) {
			refsKilled++
		}
		f.repair(t, dir, fmt.Sprintf("round %d, a killed layout ref", i), seen)
		got := f.state(t, dir)
		switch got.layout {
		case "branch":
			seen["layout ref: left in the branch layout"]++
			if got != f.before {
				t.Fatalf("round %d: back in the branch layout, but not as before:\n%+v\nwant %+v", i, got, f.before)
			}
			mustMegagit(t, f.env, "-C", dir, "layout", "ref")
			got = f.state(t, dir)
		case "ref":
			seen["layout ref: moved"]++
		}
		if got != f.after {
			t.Fatalf("round %d: not what a whole layout ref leaves:\n%+v\nwant %+v", i, got, f.after)
		}
		gitOut(t, f.env, dir, "fsck", "--no-progress")

		// And back, killed too.
		f.untrack(t, dir)
		if !kb.run(t, megagitCmd(f.env, dir, "", "layout", "branch")) {
			branchesKilled++
		}
		f.repair(t, dir, fmt.Sprintf("round %d, a killed layout branch", i), seen)
		switch f.state(t, dir).layout {
		case "ref":
			seen["layout branch: left in the ref layout"]++
			mustMegagit(t, f.env, "-C", dir, "layout", "branch")
		case "branch":
			seen["layout branch: moved"]++
		}
		if got := f.merged(t, dir); got != back {
			t.Fatalf("round %d: not what a whole layout branch leaves:\n%+v\nwant %+v", i, got, back)
		}
		mustMegagit(t, f.env, "-C", dir, "doctor", "--offline")
		gitOut(t, f.env, dir, "fsck", "--no-progress")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d rounds: %d layout refs killed, %d layout branches killed", rounds, refsKilled, branchesKilled)
	for note, n := range seen {
		t.Logf("%d time(s): %s", n, note)
	}
}
