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
