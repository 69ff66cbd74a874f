package registry_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/megagit/megagit/registry/registrytest"
	"github.com/megagit/megagit/skillfile"
)

// Lint reads every folder under the roots, counts the skills it read and
// reports a name defined in two roots once, on the second copy.
func TestLint(t *testing.T) {
	r := registrytest.New(t, "flaky-tests")
	copyDir := filepath.Join(r.Root(), "more", "flaky-tests")
	if err := os.MkdirAll(copyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := registrytest.ReadFile(t, registrytest.SkillPath(r, "flaky-tests"))
	if err := os.WriteFile(filepath.Join(copyDir, "SKILL.md"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(r.Root(), "skills", "empty-folder"), 0o755) // no SKILL.md: not a skill
	problems, checked := r.Lint([]string{"skills", "more", "missing"})
	if checked != 1 {
		t.Fatalf("checked %d skills, want 1", checked)
	}
	var dup []skillfile.Problem
	for _, p := range problems {
		if p.Field == "name" && p.Severity == "error" {
			dup = append(dup, p)
		}
	}
	if len(dup) != 1 || dup[0].File != "more/flaky-tests/SKILL.md" ||
		dup[0].Message != `skill "flaky-tests" is already defined by skills/flaky-tests/SKILL.md; this copy is ignored` {
		t.Fatalf("duplicate problems: %+v", dup)
	}
}
