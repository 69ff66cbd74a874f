package hook

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRegistryDirRelativeToProject: a relative -C from a project's shared
// settings names the registry from the project's top, wherever in the
// project the agent runs; an absolute one, or none, is taken as it is.
func TestRegistryDirRelativeToProject(t *testing.T) {
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(proj, "services", "api")
	for _, c := range []struct{ dir, cwd, want string }{
		{"tools/skills", sub, filepath.Join(proj, "tools", "skills")},
		{"tools/skills", proj, filepath.Join(proj, "tools", "skills")},
		{"/srv/reg", sub, "/srv/reg"},
		{"", sub, sub},
		{"reg", "", "reg"},
	} {
		if got := RegistryDir(c.dir, c.cwd); got != c.want {
			t.Errorf("RegistryDir(%q, %q) = %q, want %q", c.dir, c.cwd, got, c.want)
		}
	}
	outside := t.TempDir()
	if got := RegistryDir("reg", outside); got != filepath.Join(outside, "reg") {
		t.Errorf("outside a project: %q", got)
	}
}
