package regsync

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

// newTestRegistry makes a temp registry with a git identity and the named
// skills, each committed: the first member of a team.
func newTestRegistry(t *testing.T, skills ...string) *registry.Registry {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Test User")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("HOME", t.TempDir())
	r, _, err := registry.Init(t.TempDir(), []byte("roots: [skills]\n"), registry.Options{})
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

// gitCmd runs the real git in the registry for assertions.
func gitCmd(t *testing.T, r *registry.Registry, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func verdict(t *testing.T, r *registry.Registry, skill string, v lifecycle.Verdict) {
	t.Helper()
	if _, _, err := r.RecordVerdicts([]registry.VerdictInput{{Skill: skill, Verdict: v, Context: "ctx " + string(v)}}, time.Now()); err != nil {
		t.Fatalf("verdict %s %s: %v", skill, v, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func skillPath(r *registry.Registry, name string) string {
	return filepath.Join(r.Root(), "skills", name, "SKILL.md")
}
