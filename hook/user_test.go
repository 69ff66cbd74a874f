package hook

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const promptHook = `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"megagit-hook prompt --agent claude"}]}]}}`

// TestLocate checks where each kind of hook looks for its registry: -C
// wins; a user-scope hook takes the user registry where the folder has
// none, steps aside in a project running megagit's prompt hook itself,
// but not for the user's own settings seen from the home folder (a
// dotfiles repository there makes it look like a project).
func TestLocate(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(t.TempDir(), "user")
	plain := t.TempDir()
	if got, err := Locate("/srv/reg", user, plain, AgentClaude); got != "/srv/reg" || err != nil {
		t.Errorf("-C: %q, %v; want /srv/reg", got, err)
	}
	if got, err := Locate("", "", plain, AgentClaude); got != plain || err != nil {
		t.Errorf("a project hook: %q, %v; want the cwd %q", got, err, plain)
	}
	if got, err := Locate("", user, plain, AgentClaude); got != user || err != nil {
		t.Errorf("a user hook where there is no registry: %q, %v; want the user registry %q", got, err, user)
	}

	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(proj, ".claude", "settings.local.json"), promptHook)
	if _, err := Locate("", user, filepath.Join(proj, "src"), AgentClaude); !errors.Is(err, ErrProjectHook) {
		t.Errorf("a project running its own prompt hook: %v; want ErrProjectHook", err)
	}
	if got, err := Locate("", user, proj, AgentGemini); got != user || err != nil {
		t.Errorf("another agent's hook in that project: %q, %v; want the user registry", got, err)
	}
	stopOnly := t.TempDir()
	writeFile(t, filepath.Join(stopOnly, ".claude", "settings.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"megagit hook stop --agent claude"}]}]}}`)
	if got, err := Locate("", user, stopOnly, AgentClaude); got != user || err != nil {
		t.Errorf("a project with megagit's stop hook only: %q, %v; want the user registry", got, err)
	}

	// A FIFO in the place of a project's settings file never blocks the
	// hook: it is not read.
	fifo := t.TempDir()
	writeFile(t, filepath.Join(fifo, ".git", "HEAD"), "ref: refs/heads/main\n")
	if err := os.MkdirAll(filepath.Join(fifo, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifo, ".claude", "settings.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { got, _ := Locate("", user, fifo, AgentClaude); done <- got }()
	select {
	case got := <-done:
		if got != user {
			t.Errorf("with a FIFO for settings: %q, want the user registry", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a FIFO in the place of .claude/settings.json blocked the hook")
	}

	// The home folder as a git repository of dotfiles, its settings the
	// user's own, which hold the user-scope hook.
	writeFile(t, filepath.Join(home, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), promptHook)
	for _, cwd := range []string{home, filepath.Join(home, "notes")} {
		if got, err := Locate("", user, cwd, AgentClaude); got != user || err != nil {
			t.Errorf("in %s, under the user's own settings: %q, %v; want the user registry", cwd, got, err)
		}
	}
}
