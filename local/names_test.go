package local

import "testing"

func TestSameName(t *testing.T) {
	for _, tt := range []struct {
		part, name string
		want       bool
	}{
		{".git", ".git", true},
		{".GIT", ".git", true},
		{".Git", ".git", true},
		{".git.", ".git", true},
		{".git ", ".git", true},
		{".git. . ", ".git", true},
		{".git::$INDEX_ALLOCATION", ".git", true},
		{"git~1", ".git", true},
		{"GIT~1", ".git", true},
		{".g\u200cit", ".git", true},
		{"\ufeff.git", ".git", true},
		{".gi\u202et", ".git", true},
		{".gitx", ".git", false},
		{"git", ".git", false},
		{"git~", ".git", false},
		{"git~10", ".git", false},
		{".", ".git", false},
		{"", ".git", false},
		{"...", ".git", false},
		{".github", ".git", false},
		{".gitignore", ".git", false},
		{".MEGAGIT", ".megagit", true},
		{"megagi~1", ".megagit", true},
		{".megagit.", ".megagit", true},
		{"LOCAL", "local", true},
		{"Local", "local", true},
		{"local.", "local", true},
		{"lo\u200dcal", "local", true},
		{"local~1", "local", false},
		{"locale", "local", false},
		{"CONFIG.YAML", "config.yaml", true},
	} {
		if got := SameName(tt.part, tt.name); got != tt.want {
			t.Errorf("SameName(%q, %q) = %v, want %v", tt.part, tt.name, got, tt.want)
		}
	}
}

func TestIsLocalPath(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{".megagit/local", true},
		{".megagit/local/config.yaml", true},
		{".megagit/LOCAL/config.yaml", true},
		{".megagit/Local/decisions.jsonl", true},
		{".MEGAGIT/local/config.yaml", true},
		{".megagit./local /x", true},
		{"megagi~1/local/x", true},
		{".megagit", false},
		{".megagit/localx/x", false},
		{".megagit/config.yaml", false},
		{".megagit/ledger/local.jsonl", false},
		{"skills/a/.megagit/local/config.yaml", false},
		{"local/.megagit", false},
	} {
		if got := IsLocalPath(tt.rel); got != tt.want {
			t.Errorf("IsLocalPath(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestHasDotGit(t *testing.T) {
	for _, tt := range []struct {
		p    string
		want bool
	}{
		{"skills/a/.git/config", true},
		{"skills/a/.GIT/config", true},
		{"skills/a/.git", true},
		{".git/hooks/x", true},
		{"skills/a/git~1/config", true},
		{"skills/a/.gitignore", false},
		{"skills/a/.github/x", false},
		{"skills/a/SKILL.md", false},
	} {
		if got := HasDotGit(tt.p); got != tt.want {
			t.Errorf("HasDotGit(%q) = %v, want %v", tt.p, got, tt.want)
		}
	}
}
