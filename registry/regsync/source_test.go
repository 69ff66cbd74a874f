package regsync

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/megagit/megagit/registry"
)

// gitRepo makes a repository with the real git CLI (tests may run git;
// megagit may not) holding files, one commit per call of commit.
func gitRepo(t *testing.T) (dir string, commit func(files map[string]string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	return dir, func(files map[string]string) string {
		for name, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run("add", "-A")
		run("commit", "-q", "-m", "c")
		return run("rev-parse", "HEAD")
	}
}

const skillMD = "---\nname: %s\ndescription: A skill. Use when testing.\n---\n# Body\n"

func TestFetchSourceRefs(t *testing.T) {
	dir, commit := gitRepo(t)
	first := commit(map[string]string{"skills/a/SKILL.md": strings.ReplaceAll(skillMD, "%s", "a"), "skills/a/x.txt": "1"})
	second := commit(map[string]string{"skills/a/x.txt": "2", "top/b/SKILL.md": strings.ReplaceAll(skillMD, "%s", "b")})
	ctx := context.Background()

	src, err := FetchSource(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if src.Commit != plumbing.NewHash(second) || src.URL != dir || src.Time.IsZero() {
		t.Fatalf("default branch: %+v", src)
	}
	found, err := src.Skills(nil)
	if err != nil || len(found) != 2 || found[0].Path != "skills/a" || found[1].Name != "b" {
		t.Fatalf("skills: %+v %v", found, err)
	}
	files, _, err := src.Files("skills/a", nil)
	if err != nil || string(files["x.txt"]) != "2" || len(files) != 2 {
		t.Fatalf("files: %v %v", files, err)
	}

	// A commit by a prefix of its hash: the files as they were.
	old, err := FetchSource(ctx, "file://"+dir, first[:8])
	if err != nil {
		t.Fatal(err)
	}
	if old.Commit.String() != first {
		t.Fatalf("commit prefix resolved to %s, want %s", old.Commit, first)
	}
	files, _, err = old.Files("skills/a", nil)
	if err != nil || string(files["x.txt"]) != "1" {
		t.Fatalf("old files: %v %v", files, err)
	}
	if _, err := old.Skills([]string{"top"}); !errors.Is(err, registry.ErrNotFound) || !strings.Contains(err.Error(), "looked under top") {
		t.Fatalf("no skill under top at the first commit: %v", err)
	}

	if _, err := FetchSource(ctx, dir, "nope"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("unknown ref: %v", err)
	}
	if _, err := FetchSource(ctx, filepath.Join(dir, "missing"), ""); err == nil {
		t.Fatal("a missing path was fetched")
	}
}

func TestCleanSourcePath(t *testing.T) {
	for in, want := range map[string]string{"": ".", ".": ".", "/": ".", "skills/": "skills", "/skills/a/": "skills/a", "a/../b": "b", "../x": "x"} {
		if got := CleanSourcePath(in); got != want {
			t.Errorf("CleanSourcePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPickRef(t *testing.T) {
	h := plumbing.NewHash("1111111111111111111111111111111111111111")
	refs := []*plumbing.Reference{
		plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/trunk"),
		plumbing.NewHashReference("refs/heads/trunk", h),
		plumbing.NewHashReference("refs/heads/main", h),
		plumbing.NewHashReference("refs/tags/v1", h),
	}
	for ref, want := range map[string]string{"": "refs/heads/trunk", "main": "refs/heads/main", "v1": "refs/tags/v1", "refs/tags/v1": "refs/tags/v1"} {
		if got, ok := pickRef(refs, ref); !ok || got.String() != want {
			t.Errorf("pickRef(%q) = %s %v, want %s", ref, got, ok, want)
		}
	}
	if _, ok := pickRef(refs, "refs/remotes/x"); ok {
		t.Error("only a branch or a tag is installed from")
	}
	if got, _ := pickRef(refs, "HEAD"); got.String() != "refs/heads/trunk" {
		t.Errorf("HEAD: %s", got)
	}
	// No HEAD advertised: main before the others.
	if got, _ := pickRef(refs[1:], ""); got.String() != "refs/heads/main" {
		t.Errorf("without HEAD: %s", got)
	}
}

func TestSourceURLReadsOwnerRepoAsGitHub(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("acme/skills", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"anthropics/skills", "https://github.com/anthropics/skills.git"},
		{"anthropics/skills.git", "https://github.com/anthropics/skills.git"},
		{"git@example.com:team/skills.git", "git@example.com:team/skills.git"},
	} {
		got, stored, err := SourceURL(tc.in)
		if err != nil || got != tc.want || stored != tc.want {
			t.Errorf("SourceURL(%q) = %q, %q, %v; want %q", tc.in, got, stored, err, tc.want)
		}
	}
	// A folder of that name here is the local repository, not GitHub.
	got, _, err := SourceURL("acme/skills")
	if err != nil || !filepath.IsAbs(got) {
		t.Errorf("SourceURL(acme/skills) with the folder here = %q, %v; want its absolute path", got, err)
	}
	for _, bad := range []string{"a/b/c", "./nope", "-x/y"} {
		if _, _, err := SourceURL(bad); err == nil {
			t.Errorf("SourceURL(%q): want an error (no such folder, not OWNER/REPO)", bad)
		}
	}
}
