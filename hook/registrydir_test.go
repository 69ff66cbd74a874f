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

// TestWithoutHookContext: the context Gemini CLI adds to the user's
// message for its hooks is not the prompt; the user's words are.
func TestWithoutHookContext(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hi there", "hi there"},
		{"<hook_context>megagit: in this session megagit may suggest skills</hook_context>\n\nhi there, how are you?", "hi there, how are you?"},
		{"fix it <hook_context>a</hook_context> now <hook_context>b</hook_context>", "fix it  now"},
		{"keep this <hook_context>never closed", "keep this"},
	} {
		if got := WithoutHookContext(c.in); got != c.want {
			t.Errorf("WithoutHookContext(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
