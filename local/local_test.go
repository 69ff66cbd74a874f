package local

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	mustMkdir(t, filepath.Join(root, MetaDir))
	mustMkdir(t, filepath.Join(root, "a", "b"))
	// A .megagit that is a file, not a folder, is not a registry.
	mustMkdir(t, filepath.Join(root, "fake", "sub"))
	if err := os.WriteFile(filepath.Join(root, "fake", MetaDir), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, filepath.Join(root, "a"), filepath.Join(root, "a", "b"), filepath.Join(root, "fake", "sub")} {
		t.Run(strings.TrimPrefix(dir, root), func(t *testing.T) {
			got, err := Find(dir)
			if err != nil || got != root {
				t.Fatalf("Find(%s) = %q, %v; want %q", dir, got, err, root)
			}
		})
	}

	t.Run("relative", func(t *testing.T) {
		t.Chdir(filepath.Join(root, "a"))
		if got, err := Find("b"); err != nil || got != root {
			t.Fatalf("Find(b) = %q, %v; want %q", got, err, root)
		}
	})

	t.Run("none", func(t *testing.T) {
		bare := t.TempDir()
		if got, err := Find(filepath.Dir(bare)); err == nil {
			t.Skipf("a parent of the temp folder is a registry (%s)", got)
		}
		_, err := Find(bare)
		if !errors.Is(err, ErrNotRegistry) {
			t.Fatalf("err = %v, want ErrNotRegistry", err)
		}
		want := "not a megagit registry: no .megagit folder in " + bare + " or any parent"
		if err.Error() != want {
			t.Fatalf("message\n got %q\nwant %q", err, want)
		}
	})
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestFindSkipsASkillsOwnMetaDir: a .megagit/ inside a skill's folder (a
// SKILL.md at or above it, below the enclosing registry) is no registry;
// a registry nested in another outside any skill is one.
func TestFindSkipsASkillsOwnMetaDir(t *testing.T) {
	root := t.TempDir()
	mustMkdir(t, filepath.Join(root, MetaDir))
	for _, d := range []string{"skills/helper/.megagit", "skills/helper/deep/.megagit", "vendor/proj/.megagit", "vendor/proj/skills/x/.megagit"} {
		mustMkdir(t, filepath.Join(root, filepath.FromSlash(d)))
	}
	for _, f := range []string{"skills/helper/SKILL.md", "vendor/proj/skills/x/SKILL.md", "SKILL.md"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]string{
		"skills/helper":          root,
		"skills/helper/deep":     root,
		"vendor/proj":            filepath.Join(root, "vendor", "proj"),
		"vendor/proj/skills/x":   filepath.Join(root, "vendor", "proj"),
		"vendor/proj/skills":     filepath.Join(root, "vendor", "proj"),
		"skills/helper/.megagit": root,
	} {
		if got, err := Find(filepath.Join(root, filepath.FromSlash(dir))); err != nil || got != want {
			t.Errorf("Find(%s) = %q, %v; want %q", dir, got, err, want)
		}
	}
}

// TestFindNamesAMetaFile: a .megagit that is a file, with no registry
// above, is said to be one.
func TestFindNamesAMetaFile(t *testing.T) {
	dir := t.TempDir()
	if got, err := Find(filepath.Dir(dir)); err == nil {
		t.Skipf("a parent of the temp folder is a registry (%s)", got)
	}
	if err := os.WriteFile(filepath.Join(dir, MetaDir), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(dir); !errors.Is(err, ErrNotRegistry) || !strings.Contains(err.Error(), filepath.Join(dir, MetaDir)+" is a file, not a registry's folder") {
		t.Fatalf("Find = %v", err)
	}
}
