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

	"github.com/pelletier/go-toml/v2"
)

// Kill `megagit adopt` and `megagit adopt --restore` at random moments:
// no skill file ever changes (adopt writes the agents' settings, never a
// skill); after `doctor --fix`, every switch megagit wrote into an agent's
// settings is in its journal and every journaled switch is in its file;
// and a full restore brings every settings file back byte for byte (or
// gone, when adopt created it), the evidence neither lost nor doubled.

// adoptFixture is a project with skills in its own folders and a home
// with personal ones, and the agents' settings files as the user had them.
type adoptFixture struct {
	env        []string
	proj, home string
	userReg    string
	names      []string
	// skills is every file of the agents' skill folders: content and mode.
	skills map[string]string
	// settings is each agents' settings file adopt may write, as it was
	// ("" when absent).
	settings map[string]string
}

func newAdoptFixture(t *testing.T) *adoptFixture {
	t.Helper()
	env := procEnv(t)
	f := &adoptFixture{env: env}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			f.home = v
		}
	}
	f.userReg = filepath.Join(f.home, ".local", "share", "megagit", "user")
	f.proj = filepath.Join(t.TempDir(), "proj")
	gitOut(t, env, filepath.Dir(f.proj), "init", "-q", f.proj)
	mustMegagit(t, env, "init", f.proj)
	add := func(dir, name string, script bool) {
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
		f.names = append(f.names, name)
	}
	for i := range 3 { // a root of the registry
		add(filepath.Join(f.proj, ".claude", "skills"), fmt.Sprintf("proj-claude-%d", i), false)
	}
	for i := range 3 { // Codex's and Gemini CLI's
		add(filepath.Join(f.proj, ".agents", "skills"), fmt.Sprintf("proj-agents-%d", i), i%2 == 0)
	}
	for i := range 3 {
		add(filepath.Join(f.home, ".claude", "skills"), fmt.Sprintf("mine-claude-%d", i), i == 1)
	}
	for i := range 2 {
		add(filepath.Join(f.home, ".gemini", "skills"), fmt.Sprintf("mine-gemini-%d", i), true)
	}
	// The user's own settings, which adopt must keep.
	for file, data := range map[string]string{
		filepath.Join(f.home, ".claude", "settings.json"): "{\n  \"theme\": \"dark\",\n  \"skillOverrides\": {\"someone-else\": \"off\"}\n}\n",
		filepath.Join(f.home, ".gemini", "settings.json"): "{\"ui\": {\"theme\": \"GitHub\"}}\n",
		filepath.Join(f.home, ".codex", "config.toml"):    "# mine\nmodel = \"gpt-5\"\n\n[[skills.config]]\nname = \"someone-else\"\nenabled = false\n",
	} {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitOut(t, env, f.proj, "add", ".claude/skills")
	gitOut(t, env, f.proj, "commit", "-qm", "project skills")
	f.skills = f.skillFiles(t)
	f.settings = f.settingsFiles(t)
	return f
}

func (f *adoptFixture) settingsPaths() []string {
	return []string{
		filepath.Join(f.home, ".claude", "settings.json"), filepath.Join(f.home, ".gemini", "settings.json"),
		filepath.Join(f.proj, ".claude", "settings.local.json"), filepath.Join(f.proj, ".gemini", "settings.json"),
		filepath.Join(f.home, ".codex", "config.toml"),
	}
}

func (f *adoptFixture) settingsFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range f.settingsPaths() {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	return out
}

// skillFiles reads every file of the agents' folders: path -> mode and content.
func (f *adoptFixture) skillFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{
		filepath.Join(f.proj, ".claude", "skills"), filepath.Join(f.proj, ".agents", "skills"),
		filepath.Join(f.home, ".claude", "skills"), filepath.Join(f.home, ".gemini", "skills"),
	} {
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			if e.IsDir() {
				out[p] = fmt.Sprintf("%v dir", info.Mode())
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = fmt.Sprintf("%v %s", info.Mode(), data)
			return nil
		})
	}
	return out
}

// repair runs doctor; when it fails, the repair it names, then doctor
// again, which must pass. It counts what the repair found in seen.
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

// skillsUntouched checks no file or folder of the agents' skill folders
// changed.
func (f *adoptFixture) skillsUntouched(t *testing.T, when string) {
	t.Helper()
	now := f.skillFiles(t)
	for p, want := range f.skills {
		if got := now[p]; got != want {
			t.Fatalf("%s: %s is now %q, want %q: adopt touched a skill", when, p, got, want)
		}
	}
	for p := range now {
		if _, ok := f.skills[p]; !ok {
			t.Fatalf("%s: %s was not there before", when, p)
		}
	}
}

// consistent checks every switch of a fixture skill in the agents'
// settings is journaled, every journaled switch is in its file, and no
// step is left in flight.
func (f *adoptFixture) consistent(t *testing.T, when string) {
	t.Helper()
	journaled := map[string]bool{}
	for _, reg := range []string{f.proj, f.userReg} {
		data, err := os.ReadFile(filepath.Join(reg, ".megagit", "local", "hidden.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var list []struct{ Agent, Scope, Name, File, State string }
		if err := json.Unmarshal(data, &list); err != nil {
			t.Fatalf("%s: %s: %v", when, reg, err)
		}
		for _, h := range list {
			if h.State != "" {
				t.Fatalf("%s: a step left %s of %s after doctor --fix", when, h.State, h.Name)
			}
			base := f.proj
			if h.Scope == "user" || h.Agent == "codex" {
				base = f.home
			}
			journaled[filepath.Join(base, h.File)+" "+h.Name] = true
		}
	}
	set := map[string]bool{}
	for _, p := range f.settingsPaths() {
		data, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if strings.HasSuffix(p, ".toml") {
			var c struct {
				Skills struct {
					Config []struct {
						Path    string
						Enabled bool
					}
				}
			}
			if err := toml.Unmarshal(data, &c); err != nil {
				t.Fatalf("%s: %s is not TOML any more: %v\n%s", when, p, err, data)
			}
			for _, e := range c.Skills.Config {
				if e.Path != "" && !e.Enabled {
					set[p+" "+filepath.Base(filepath.Dir(e.Path))] = true
				}
			}
			continue
		}
		var s struct {
			SkillOverrides map[string]string           `json:"skillOverrides"`
			Skills         struct{ Disabled []string } `json:"skills"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %s is not JSON any more: %v\n%s", when, p, err, data)
		}
		for name, v := range s.SkillOverrides {
			if v == "user-invocable-only" {
				set[p+" "+name] = true
			}
		}
		for _, name := range s.Skills.Disabled {
			set[p+" "+name] = true
		}
	}
	for k := range set {
		if !journaled[k] {
			t.Fatalf("%s: %s is set and no journal names it: restore would never take it back", when, k)
		}
	}
	for k := range journaled {
		if !set[k] {
			t.Fatalf("%s: the journal names %s, which its file does not hold", when, k)
		}
	}
}

// settingsAsBefore checks every settings file is back byte for byte.
func (f *adoptFixture) settingsAsBefore(t *testing.T, when string) {
	t.Helper()
	for p, got := range f.settingsFiles(t) {
		if got != f.settings[p] {
			t.Fatalf("%s: %s is %q, want %q", when, p, got, f.settings[p])
		}
	}
}

func TestKilledAdoptsAndRestoresLoseNoSkill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	f := newAdoptFixture(t)
	mustMegagit(t, f.env, "-C", f.proj, "verdict", "mine-claude-0", "HELPFUL", "--reason", "before adopt")

	adopt := []string{"adopt", "--scope", "all", "--codex-disable"}
	restore := []string{"adopt", "--restore", "--scope", "all"}
	ka := newKiller(t, "an adopt", timed(t, f.env, f.proj, "", adopt...))
	f.consistent(t, "after a whole adopt")
	if got := f.settingsFiles(t)[filepath.Join(f.home, ".claude", "settings.json")]; !strings.Contains(got, `"mine-claude-2": "user-invocable-only"`) || !strings.Contains(got, `"theme": "dark"`) {
		t.Fatalf("after adopt, ~/.claude/settings.json is\n%s", got)
	}
	if got := f.settingsFiles(t)[filepath.Join(f.home, ".codex", "config.toml")]; !strings.Contains(got, "proj-agents-1/SKILL.md'\nenabled = false") || !strings.HasPrefix(got, "# mine\n") {
		t.Fatalf("after adopt, ~/.codex/config.toml is\n%s", got)
	}
	kr := newKiller(t, "a restore", timed(t, f.env, f.proj, "", restore...))
	f.settingsAsBefore(t, "after a whole restore")
	kr.start = ka.start

	rounds, adoptsKilled, restoresKilled := 0, 0, 0
	seen := map[string]int{}
	for i := 0; ka.more(i, 8, 30, 90*time.Second); i++ {
		rounds++
		if !ka.run(t, megagitCmd(f.env, f.proj, "", adopt...)) {
			adoptsKilled++
		}
		f.repair(t, seen)
		f.consistent(t, fmt.Sprintf("round %d, after a killed adopt and doctor --fix", i))
		f.skillsUntouched(t, fmt.Sprintf("round %d, after a killed adopt", i))
		mustMegagit(t, f.env, append([]string{"-C", f.proj}, adopt...)...) // adopt finishes what is left
		f.consistent(t, fmt.Sprintf("round %d, after adopt", i))
		if !kr.run(t, megagitCmd(f.env, f.proj, "", restore...)) {
			restoresKilled++
		}
		f.repair(t, seen)
		f.consistent(t, fmt.Sprintf("round %d, after a killed restore and doctor --fix", i))
		mustMegagit(t, f.env, append([]string{"-C", f.proj}, restore...)...)
		f.settingsAsBefore(t, fmt.Sprintf("round %d, after restore", i))
		f.skillsUntouched(t, fmt.Sprintf("round %d, after restore", i))
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
}
