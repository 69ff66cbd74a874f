package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadUser(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	file := filepath.Join(home, ".config", "megagit", "config.yaml")
	if got := UserFile(); got != file {
		t.Fatalf("UserFile = %q, want %q", got, file)
	}
	u, err := LoadUser()
	if err != nil || u.TeamRegistry != "" || u.File != "" {
		t.Fatalf("no file: %+v, %v", u, err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ text, want string }{
		{"team_registry: ~/src/team\n", filepath.Join(home, "src", "team")},
		{"team_registry: ../team\n", filepath.Join(home, ".config", "team")},
		{"team_registry: /srv/team/\n", "/srv/team"},
	} {
		if err := os.WriteFile(file, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		u, err := LoadUser()
		if err != nil || u.TeamRegistry != tt.want || u.File != file {
			t.Errorf("%q: %+v, %v; want team %q", tt.text, u, err, tt.want)
		}
	}
	t.Setenv(TeamRegistryEnv, "/elsewhere")
	if u, _ := LoadUser(); u.TeamRegistry != "/elsewhere" {
		t.Errorf("%s did not override the file: %q", TeamRegistryEnv, u.TeamRegistry)
	}
	if err := os.WriteFile(file, []byte("team_registy: /srv/team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadUser(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "unknown field team_registy") || !strings.Contains(err.Error(), file) {
		t.Errorf("a misspelt field: %v", err)
	}
}

// TestUserConfigSaysWhereNotWhat: a user config that is a link to some
// other readable file is refused naming the file, never quoting what it
// holds; team_registry of the wrong type is an error, not ignored.
func TestUserConfigSaysWhereNotWhat(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv(TeamRegistryEnv, "")
	os.Unsetenv(TeamRegistryEnv)
	file := UserFile()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(home, "secret")
	if err := os.WriteFile(secret, []byte("aws_secret_access_key = AKIA-SECRET-VALUE\n[default\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, file); err != nil {
		t.Fatal(err)
	}
	_, err := LoadUser()
	if err == nil || strings.Contains(err.Error(), "AKIA") || strings.Contains(err.Error(), "aws_secret") || !strings.Contains(err.Error(), file) {
		t.Errorf("a link to another file: %v", err)
	}
	os.Remove(file)
	if err := os.WriteFile(file, []byte("team_registry: [/srv/team, /srv/other]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadUser(); err == nil || !strings.Contains(err.Error(), "field team_registry: must be a folder's path") {
		t.Errorf("team_registry as a list: %v", err)
	}
}
