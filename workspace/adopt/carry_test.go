package adopt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCannotCarry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string)
		want  string // "" for nothing
	}{
		{"plain", func(dir string) { write(t, filepath.Join(dir, "scripts", "x.sh"), "echo") }, ""},
		{"clone", func(dir string) { write(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n") }, "a git repository (it holds .git)"},
		{"worktree", func(dir string) { write(t, filepath.Join(dir, ".git"), "gitdir: /x\n") }, "a git repository (it holds .git)"},
		{"nested clone", func(dir string) { write(t, filepath.Join(dir, "vendor", "lib", ".git", "HEAD"), "x") }, "it holds vendor/lib/.git"},
		{"empty folder", func(dir string) { os.MkdirAll(filepath.Join(dir, "assets"), 0o755) }, "its folder assets is empty"},
		{"symlink", func(dir string) { os.Symlink("/etc/hostname", filepath.Join(dir, "link")) }, "is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "SKILL.md"), "---\nname: x\n---\n")
			tc.setup(dir)
			got := cannotCarry(dir)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("cannotCarry = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReturnIntoDeletesOnlyWhatWasCarried: what adopt carried into the
// registry goes; a .git and an empty folder go back into the restored
// folder; what the restored folder has in its place stays in the backup.
func TestReturnIntoDeletesOnlyWhatWasCarried(t *testing.T) {
	backup, dest := t.TempDir(), t.TempDir()
	write(t, filepath.Join(backup, "SKILL.md"), "old")
	write(t, filepath.Join(backup, "scripts", "run.sh"), "old")
	write(t, filepath.Join(backup, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(backup, "docs", ".git"), "gitdir: /x\n")
	os.MkdirAll(filepath.Join(backup, "empty"), 0o755)
	write(t, filepath.Join(dest, "SKILL.md"), "new")
	write(t, filepath.Join(dest, "scripts", "run.sh"), "new")
	write(t, filepath.Join(dest, "docs", ".git"), "the registry's own")
	if err := returnInto(backup, dest); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".git/HEAD", "empty"} {
		if _, err := os.Stat(filepath.Join(dest, p)); err != nil {
			t.Errorf("%s not put back: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "docs", ".git")); string(b) != "the registry's own" {
		t.Errorf("dest's docs/.git replaced: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(backup, "docs", ".git")); string(b) != "gitdir: /x\n" {
		t.Errorf("backup's docs/.git, which dest has in its place, not kept: %q", b)
	}
	for _, p := range []string{"SKILL.md", "scripts", ".git", "empty"} {
		if _, err := os.Lstat(filepath.Join(backup, p)); err == nil {
			t.Errorf("%s still in the backup", p)
		}
	}
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
