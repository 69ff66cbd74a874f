package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/megagit/megagit/registry/registrytest"
)

func writeSkill(t *testing.T, dir, name, desc string) string {
	t.Helper()
	p := filepath.Join(dir, name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Skills merge by name, project over user over team; the losers are
// shadowed, not dropped; a user folder may link skills in from anywhere,
// a project folder (anyone's commit) may not.
func TestCatalogPrecedence(t *testing.T) {
	team := registrytest.New(t, "shared", "team-only")
	proj := registrytest.New(t, "shared") // its HOME is the one in effect
	home := os.Getenv("HOME")
	t.Setenv("MEGAGIT_TEAM_REGISTRY", team.Root())
	writeSkill(t, filepath.Join(home, ".claude", "skills"), "shared", "The user's shared.")
	writeSkill(t, filepath.Join(home, ".claude", "skills"), "user-only", "Only the user's.")
	elsewhere := writeSkill(t, t.TempDir(), "linked", "Linked in from a clone.")
	if err := os.MkdirAll(filepath.Join(home, ".gemini", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(elsewhere), filepath.Join(home, ".gemini", "skills", "linked")); err != nil {
		t.Fatal(err)
	}
	projAgents := filepath.Join(proj.WorkTree(), ".agents", "skills")
	writeSkill(t, projAgents, "team-only", "The project's own team-only.")
	if err := os.Symlink(filepath.Dir(elsewhere), filepath.Join(projAgents, "sneaky")); err != nil {
		t.Fatal(err)
	}

	w, err := Open(proj.Root(), nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	c, err := w.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range c.Skills {
		got[s.Name] = s.Kind + " " + s.File.Description()
	}
	want := map[string]string{
		"shared":    "project The shared skill.",
		"team-only": "project The project's own team-only.",
		"user-only": "user Only the user's.",
		"linked":    "user Linked in from a clone.",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if _, ok := got["sneaky"]; ok {
		t.Error("a project folder's symlink leading outside was followed")
	}
	var shadowed []string
	for _, s := range c.Shadowed {
		shadowed = append(shadowed, s.Kind+" "+s.Name)
	}
	if !slices.Equal(shadowed, []string{"user shared", "team shared", "team team-only"}) {
		t.Errorf("shadowed %q", shadowed)
	}
	var problems []string
	for _, p := range c.Problems {
		problems = append(problems, p.Error())
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "sneaky") {
		t.Errorf("problems %q, want the project's symlink refused", problems)
	}

	// Others leaves the registry's own skills unparsed: what the others
	// add, with the registry's names shadowing theirs.
	o, err := w.Others()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range o.Skills {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"linked", "team-only", "user-only"}) {
		t.Errorf("Others: %q", names)
	}
}
