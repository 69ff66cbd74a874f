// Package registrytest makes real registries for the tests of registry,
// regsync and their callers: a temp registry with a git identity and
// committed skills, a recorded verdict, and the real git CLI to check what
// plain git sees.
package registrytest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
)

// New makes a temp registry with a git identity and the named skills, each
// committed.
func New(t testing.TB, skills ...string) *registry.Registry {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Test User")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	// A private home: no skill folder or user config of the machine's
	// (~/.claude/skills, ~/.config/megagit/config.yaml) is read.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("MEGAGIT_TEAM_REGISTRY", "")
	t.Setenv("MEGAGIT_USER_REGISTRY", "")
	dir := t.TempDir()
	r, _, err := registry.Init(dir, []byte("roots: [skills]\n"), registry.Options{})
	if err != nil {
		t.Fatalf("init: %v", err)
	}
	for _, s := range skills {
		if _, _, err := r.AddSkill(s, "The "+s+" skill.", ""); err != nil {
			t.Fatalf("add %s: %v", s, err)
		}
	}
	return r
}

// Git runs the real git in the registry for assertions; it skips the test
// where git is not installed.
func Git(t testing.TB, r *registry.Registry, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Verdict records one verdict (context "ctx " + v) or fails the test.
func Verdict(t testing.TB, r *registry.Registry, skill string, v lifecycle.Verdict) {
	t.Helper()
	if _, _, err := r.RecordVerdicts([]registry.VerdictInput{{Skill: skill, Verdict: v, Context: "ctx " + string(v)}}, time.Now()); err != nil {
		t.Fatalf("verdict %s %s: %v", skill, v, err)
	}
}

// ReadFile reads a file or fails the test.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// SkillPath is where New puts a skill's SKILL.md.
func SkillPath(r *registry.Registry, name string) string {
	return filepath.Join(r.Root(), "skills", name, "SKILL.md")
}
