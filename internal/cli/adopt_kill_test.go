package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Kill `megagit adopt` and `megagit adopt --restore` at random moments:
// after `doctor --fix`, every skill is in exactly one place (its agent's
// folder or the registry it was adopted into), nothing is moved aside
// where no list of adopted skills names it, and a full restore brings
// every skill back byte for byte with its files' modes, its evidence
// neither lost nor doubled.

// adoptFixture is a project with skills in its own folders and a home
// with personal ones: where each skill starts, and where adopt takes it.
type adoptFixture struct {
	env        []string
	proj, home string
	userReg    string
	// skills maps each skill's folder in its agent's folder to the folder
	// it has once adopted ("" for one adopt must leave: shadowed).
	skills map[string]string
	// before is every file of the agents' folders: content and mode.
	before map[string]string
}

func newAdoptFixture(t *testing.T) *adoptFixture {
	t.Helper()
	env := procEnv(t)
	f := &adoptFixture{env: env, skills: map[string]string{}}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			f.home = v
		}
	}
	f.userReg = filepath.Join(f.home, ".local", "share", "megagit", "user")
	f.proj = filepath.Join(t.TempDir(), "proj")
	gitOut(t, env, filepath.Dir(f.proj), "init", "-q", f.proj)
	mustMegagit(t, env, "init", f.proj)
	add := func(dir, name, adopted string, script bool) {
		at := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(at, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: The %s skill, for the kill test. Use when %s is needed.\n---\n# %s\n\nRun scripts/run.sh.\n", name, name, name, name)
		if err := os.WriteFile(filepath.Join(at, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		mode := fs.FileMode(0o644)
		if script {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(at, "scripts", "run.sh"), []byte("#!/bin/sh\necho "+name+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		f.skills[at] = adopted
		if adopted != "" {
			f.skills[at] = filepath.Join(adopted, name)
		}
	}
	projSkills, userSkills := filepath.Join(f.proj, "skills"), filepath.Join(f.userReg, "skills")
	for i := range 2 { // a root of the registry: moved within it
		add(filepath.Join(f.proj, ".claude", "skills"), fmt.Sprintf("proj-claude-%d", i), projSkills, false)
	}
	for i := range 3 {
		add(filepath.Join(f.proj, ".agents", "skills"), fmt.Sprintf("proj-codex-%d", i), projSkills, i%2 == 0)
	}
	for i := range 3 {
		add(filepath.Join(f.home, ".claude", "skills"), fmt.Sprintf("mine-claude-%d", i), userSkills, i == 1)
	}
	for i := range 2 {
		add(filepath.Join(f.home, ".agents", "skills"), fmt.Sprintf("mine-codex-%d", i), userSkills, true)
	}
	add(filepath.Join(f.home, ".claude", "skills"), "proj-claude-0", "", false) // shadowed by the project's
	gitOut(t, env, f.proj, "add", ".claude/skills")
	gitOut(t, env, f.proj, "commit", "-qm", "project skills")
	f.before = f.files(t)
	return f
}

// files reads every file of the agents' folders: path -> mode and content.
func (f *adoptFixture) files(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{
		filepath.Join(f.proj, ".claude", "skills"), filepath.Join(f.proj, ".agents", "skills"),
		filepath.Join(f.home, ".claude", "skills"), filepath.Join(f.home, ".agents", "skills"),
	} {
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = fmt.Sprintf("%v %s", info.Mode().Perm(), data)
			return nil
		})
	}
	return out
}

// repair runs doctor; when it fails, the repair it names, then doctor
// again, which must pass. It counts what the repair found in seen: the
// states a kill left, told apart by doctor --fix's notes.
func (f *adoptFixture) repair(t *testing.T, seen map[string]int) {
	t.Helper()
	out, err := megagitProc(t, f.env, "-C", f.proj, "doctor", "--offline")
	if err != nil {
		if !strings.Contains(out, "megagit doctor --fix") {
			t.Fatalf("doctor fails and suggests no repair:\n%s", out)
		}
		out = mustMegagit(t, f.env, "-C", f.proj, "doctor", "--fix", "--offline")
	}
	found := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, "interrupted adopt or restore: "):
			_, note, _ := strings.Cut(line, "interrupted adopt or restore: ")
			_, note, _ = strings.Cut(note, ": ")
			if i := strings.IndexAny(note, "/("); i > 0 {
				note = note[:i]
			}
			seen[strings.TrimSpace(note)]++
			found = true
		case strings.Contains(line, "finished an interrupted write"):
			seen["a registry write finished from its journal"]++
			found = true
		case strings.Contains(line, "temp file(s) of interrupted writes"):
			seen["temp files removed"]++
			found = true
		}
	}
	if !found {
		seen["nothing to repair"]++
	}
	mustMegagit(t, f.env, "-C", f.proj, "doctor", "--offline")
}

// onePlace checks every skill is in its agent's folder or where adopt
// takes it, never both and never neither; that no original is moved aside
// where no list names it; and that no restore left its temp folder.
func (f *adoptFixture) onePlace(t *testing.T, when string) {
	t.Helper()
	for from, to := range f.skills {
		in := exists(filepath.Join(from, "SKILL.md"))
		adopted := to != "" && exists(filepath.Join(to, "SKILL.md"))
		if in == adopted {
			t.Fatalf("%s: %s is in its agent's folder: %v, in the registry (%s): %v", when, filepath.Base(from), in, to, adopted)
		}
		if exists(from + ".megagit-restore") {
			t.Fatalf("%s: a restore's temp folder %s is left", when, from+".megagit-restore")
		}
	}
	for _, reg := range []string{f.proj, f.userReg} {
		named := map[string]bool{}
		data, err := os.ReadFile(filepath.Join(reg, ".megagit", "local", "adopted.json"))
		if err == nil {
			var list []struct {
				Backup string `json:"backup"`
				State  string `json:"state"`
			}
			if err := json.Unmarshal(data, &list); err != nil {
				t.Fatalf("%s: %s: %v", when, reg, err)
			}
			for _, a := range list {
				if a.State != "" {
					t.Fatalf("%s: a step left %s after doctor --fix", when, a.State)
				}
				named[filepath.Join(reg, filepath.FromSlash(a.Backup))] = true
			}
		}
		aside, _ := filepath.Glob(filepath.Join(reg, ".megagit", "local", "adopted", "*", "*"))
		for _, b := range aside {
			if !named[b] {
				t.Fatalf("%s: %s was moved aside and no list names it: restore never looks there", when, b)
			}
		}
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// sameAsBefore checks every file of the agents' folders is back, with its
// content and mode.
func (f *adoptFixture) sameAsBefore(t *testing.T, when string) {
	t.Helper()
	now := f.files(t)
	for p, want := range f.before {
		if got, ok := now[p]; !ok {
			t.Fatalf("%s: %s is not back", when, p)
		} else if got != want {
			t.Fatalf("%s: %s came back as %q, want %q", when, p, got, want)
		}
	}
	for p := range now {
		if _, ok := f.before[p]; !ok {
			t.Fatalf("%s: %s was not there before", when, p)
		}
	}
}

func TestKilledAdoptsAndRestoresLoseNoSkill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	f := newAdoptFixture(t)
	// A verdict on a personal skill while it is read-only: adopt takes it
	// along and restore gives it back, once.
	mustMegagit(t, f.env, "-C", f.proj, "verdict", "mine-claude-0", "HELPFUL", "--reason", "before adopt")

	adopt := []string{"adopt", "--scope", "all"}
	restore := []string{"adopt", "--restore", "--scope", "all"}
	ka := newKiller(t, "an adopt", timed(t, f.env, f.proj, "", adopt...))
	f.onePlace(t, "after a whole adopt")
	kr := newKiller(t, "a restore", timed(t, f.env, f.proj, "", restore...))
	f.sameAsBefore(t, "after a whole restore")
	kr.start = ka.start

	rounds, adoptsKilled, restoresKilled := 0, 0, 0
	seen := map[string]int{}
	for i := 0; ka.more(i, 8, 30, 90*time.Second); i++ {
		rounds++
		if !ka.run(t, megagitCmd(f.env, f.proj, "", adopt...)) {
			adoptsKilled++
		}
		f.repair(t, seen)
		f.onePlace(t, fmt.Sprintf("round %d, after a killed adopt and doctor --fix", i))
		mustMegagit(t, f.env, append([]string{"-C", f.proj}, adopt...)...) // adopt finishes what is left
		f.onePlace(t, fmt.Sprintf("round %d, after adopt", i))
		if !kr.run(t, megagitCmd(f.env, f.proj, "", restore...)) {
			restoresKilled++
		}
		f.repair(t, seen)
		f.onePlace(t, fmt.Sprintf("round %d, after a killed restore and doctor --fix", i))
		mustMegagit(t, f.env, append([]string{"-C", f.proj}, restore...)...)
		f.sameAsBefore(t, fmt.Sprintf("round %d, after restore", i))
	}
	t.Logf("%d rounds: %d of %d adopts killed, %d of %d restores killed", rounds, adoptsKilled, rounds, restoresKilled, rounds)
	for note, n := range seen {
		t.Logf("after a kill, %d time(s): %s", n, note)
	}
	out := mustMegagit(t, f.env, "-C", f.proj, "skill", "list")
	if !strings.Contains(out, "mine-claude-0\tactive\t1\t0\t") {
		t.Fatalf("the verdict on mine-claude-0 is lost or doubled:\n%s", out)
	}
	gitOut(t, f.env, f.proj, "fsck", "--no-progress")
	gitOut(t, f.env, f.userReg, "fsck", "--no-progress")
}
