package registry_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

// project makes a git repository with one commit of a project file, on
// branch feature, and a ref-layout registry in it with skill alpha.
func project(t *testing.T) (*registry.Registry, func(args ...string) string, *[]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	registrytest.New(t) // the identity and a private HOME
	dir := t.TempDir()
	git := gitIn(t, dir)
	git("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "app.go"), []byte("package app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "app.go")
	git("commit", "-q", "-m", "the app")
	git("checkout", "-q", "-b", "feature")
	if l, err := registry.ChooseLayout(dir); err != nil || l != registry.LayoutRef {
		t.Fatalf("ChooseLayout in a project: %q, %v", l, err)
	}
	warnings := &[]string{}
	opts := registry.Options{Roots: []string{registry.RefSkillsRoot}, Warn: func(s string) { *warnings = append(*warnings, s) }}
	r, _, err := registry.InitLayout(dir, []byte("roots: [.megagit/skills]\n"), registry.LayoutAuto, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.AddSkill("alpha", "The alpha skill.", ""); err != nil {
		t.Fatal(err)
	}
	return r, git, warnings
}

func TestRefLayoutLeavesTheProjectAlone(t *testing.T) {
	r, git, _ := project(t)
	head := git("rev-parse", "HEAD")
	git("add", "app.go") // an index entry of the developer's, unchanged
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	if got := git("rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved from %s to %s", head, got)
	}
	if st := git("status", "--porcelain"); st != "" {
		t.Fatalf("the project sees megagit's files:\n%s", st)
	}
	if files := git("ls-tree", "-r", "--name-only", "megagit"); strings.Contains(files, "app.go") || !strings.Contains(files, ".megagit/ledger/alpha.jsonl") {
		t.Fatalf("branch megagit holds:\n%s", files)
	}
	if _, err := os.Stat(filepath.Join(r.WorkTree(), ".gitattributes")); !os.IsNotExist(err) {
		t.Fatal("the registry branch's .gitattributes was written into the project")
	}
	git("fsck", "--strict", "--no-progress")
}

// When the registry's branch moves outside megagit, the next command
// brings .megagit/ up to it and keeps the user's own edits.
func TestRefLayoutFollowsItsBranchAndKeepsEdits(t *testing.T) {
	r, git, warnings := project(t)
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	if _, _, err := r.AddSkill("beta", "The beta skill.", ""); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "edit")
	git("worktree", "add", "-q", wt, "megagit")
	edit := func(rel, text string) {
		p := filepath.Join(wt, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(registrytest.ReadFile(t, p)+text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(".megagit/skills/alpha/SKILL.md", "From the branch.\n")
	edit(".megagit/skills/beta/SKILL.md", "From the branch.\n")
	git("-C", wt, "commit", "-q", "-am", "edit by hand")
	git("worktree", "remove", wt)
	// The user edited beta in .megagit/ too, differently.
	beta := r.Abs(".megagit/skills/beta/SKILL.md")
	mine := registrytest.ReadFile(t, beta) + "Mine.\n"
	if err := os.WriteFile(beta, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := registry.Open(r.Root(), registry.Options{Roots: []string{registry.RefSkillsRoot}, Warn: func(s string) { *warnings = append(*warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := registrytest.ReadFile(t, r.Abs(".megagit/skills/alpha/SKILL.md")); !strings.Contains(got, "From the branch.") {
		t.Fatalf("alpha not brought up to the branch:\n%s", got)
	}
	if registrytest.ReadFile(t, beta) != mine {
		t.Fatal("the user's edit of beta was overwritten")
	}
	if !strings.Contains(strings.Join(*warnings, "\n"), "kept your own edits of .megagit/skills/beta/SKILL.md") {
		t.Fatalf("no warning about the kept edit: %q", *warnings)
	}
	registrytest.Verdict(t, r2, "alpha", lifecycle.Neutral) // builds on the branch's commit
	if msg := git("log", "-2", "--format=%s", "megagit"); !strings.Contains(msg, "edit by hand") {
		t.Fatalf("the verdict did not build on the hand edit:\n%s", msg)
	}
	_, _, err = r2.RecordVerdicts([]registry.VerdictInput{{Skill: "beta", Verdict: lifecycle.Helpful}}, time.Now())
	if !errors.Is(err, registry.ErrDirty) || !strings.Contains(err.Error(), "git worktree add") {
		t.Fatalf("a verdict on the edited beta: want ErrDirty naming the worktree, got %v", err)
	}
}

// gitIn runs the real git in dir for a test's set-up and assertions.
func gitIn(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
}

// A branch named megagit that holds anything outside .megagit/ is not a
// registry branch: init refuses it rather than write project files.
func TestRefLayoutRefusesAForeignBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	registrytest.New(t)
	dir := t.TempDir()
	git := gitIn(t, dir)
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "start")
	if err := os.WriteFile(filepath.Join(dir, "app.go"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("checkout", "-q", "-b", "megagit")
	git("add", "app.go")
	git("commit", "-q", "-m", "not a registry")
	git("checkout", "-q", "main")
	_, _, err := registry.InitLayout(dir, []byte("roots: [.megagit/skills]\n"), registry.LayoutRef, registry.Options{})
	if !errors.Is(err, errkind.ErrInvalid) || !strings.Contains(err.Error(), "not a megagit registry branch") {
		t.Fatalf("want a refusal of branch megagit, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, local.MetaDir)); !os.IsNotExist(err) {
		t.Fatal("a refused init left .megagit/ behind")
	}
}
