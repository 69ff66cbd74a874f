package registry_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

func TestRemoveSkillIsOneCommitAndKeepsHistory(t *testing.T) {
	r := registrytest.New(t, "alpha", "beta")
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	writeFile(t, r.Abs("skills/alpha/scripts/run.sh"), "echo hi\n")
	registrytest.Git(t, r, "add", "skills/alpha/scripts/run.sh")
	registrytest.Git(t, r, "commit", "-qm", "script")

	m, hash, err := r.RemoveSkill("alpha")
	if err != nil {
		t.Fatal(err)
	}
	if hash.IsZero() || m.Ledger != ".megagit/ledger/alpha.jsonl" {
		t.Fatalf("RemoveSkill = %+v, %s", m, hash)
	}
	if _, err := os.Stat(r.Abs("skills/alpha")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("skills/alpha still on disk: %v", err)
	}
	if _, err := r.Skill("alpha"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("alpha after rm: %v", err)
	}
	if got := registrytest.Git(t, r, "status", "--porcelain"); got != "" {
		t.Errorf("work tree not clean after rm:\n%s", got)
	}
	files := registrytest.Git(t, r, "show", "--name-only", "--format=%B", "HEAD")
	for _, want := range []string{"Megagit-Action: remove", "skills/alpha/SKILL.md", "skills/alpha/scripts/run.sh", ".megagit/ledger/alpha.jsonl"} {
		if !strings.Contains(files, want) {
			t.Errorf("the rm commit lacks %q:\n%s", want, files)
		}
	}
	// git keeps it: reverting the commit brings the skill and its evidence back.
	registrytest.Git(t, r, "revert", "--no-edit", "HEAD")
	s, err := r.Skill("alpha")
	if err != nil || s.Evidence.HelpfulCount != 1 {
		t.Fatalf("alpha after git revert: %v %+v", err, s)
	}
	if _, _, err := r.RemoveSkill("gamma"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("rm of a missing skill: %v", err)
	}
}

func TestRemoveSkillRefusesEdits(t *testing.T) {
	r := registrytest.New(t, "alpha")
	writeFile(t, r.Abs("skills/alpha/notes.md"), "mine, not committed\n")
	if _, _, err := r.RemoveSkill("alpha"); !errors.Is(err, registry.ErrDirty) || !strings.Contains(err.Error(), "skills/alpha/notes.md") {
		t.Fatalf("rm with an untracked file in the folder: %v", err)
	}
	if _, err := os.Stat(registrytest.SkillPath(r, "alpha")); err != nil {
		t.Fatalf("a refused rm touched the skill: %v", err)
	}
}

func TestRenameSkillMovesFolderNameAndLedger(t *testing.T) {
	r := registrytest.New(t, "alpha", "beta")
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	registrytest.Verdict(t, r, "alpha", lifecycle.Harmful)
	writeFile(t, r.Abs("skills/alpha/ref/notes.md"), "notes\n")
	registrytest.Git(t, r, "add", ".")
	registrytest.Git(t, r, "commit", "-qm", "notes")

	m, hash, err := r.RenameSkill("alpha", "gamma")
	if err != nil {
		t.Fatal(err)
	}
	if hash.IsZero() || m.Path != "skills/gamma/SKILL.md" || m.Ledger != ".megagit/ledger/gamma.jsonl" {
		t.Fatalf("RenameSkill = %+v", m)
	}
	s, err := r.Skill("gamma")
	if err != nil {
		t.Fatal(err)
	}
	if s.File.Name() != "gamma" || s.Evidence.HelpfulCount != 1 || s.Evidence.HarmfulCount != 1 {
		t.Errorf("gamma: name %q, evidence %+v", s.File.Name(), s.Evidence)
	}
	entries, err := r.Ledger("gamma")
	if err != nil || len(entries) != 2 || entries[0].Skill != "gamma" {
		t.Fatalf("gamma's ledger: %v %+v", err, entries)
	}
	if _, err := r.Skill("alpha"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("alpha after mv: %v", err)
	}
	// The log of the new name follows the rename back to the old one.
	log, err := r.Log("gamma", 0)
	if err != nil || len(log) != 4 || log[0].Kind != "rename" || log[0].From != "alpha" || log[3].Kind != "add" || log[3].Skill != "alpha" {
		t.Errorf("log gamma after mv: %v %+v", err, log)
	}
	if got := registrytest.ReadFile(t, r.Abs("skills/gamma/ref/notes.md")); got != "notes\n" {
		t.Errorf("notes.md after mv: %q", got)
	}
	if _, err := os.Stat(r.Abs("skills/alpha")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("skills/alpha left behind: %v", err)
	}
	if got := registrytest.Git(t, r, "status", "--porcelain"); got != "" {
		t.Errorf("work tree not clean after mv:\n%s", got)
	}
	// A verdict on the new name lands in the moved ledger, the lifecycle
	// sees the history (doctor's replay agrees).
	registrytest.Verdict(t, r, "gamma", lifecycle.Helpful)
	if s, _ := r.Skill("gamma"); s.Evidence.HelpfulCount != 2 {
		t.Errorf("gamma after a verdict: %+v", s.Evidence)
	}
	for _, c := range r.Doctor() {
		if c.Status == doctor.Fail || (c.Name == "ledger-orphans" && c.Status != doctor.OK) {
			t.Errorf("doctor after mv: %+v", c)
		}
	}

	for _, tc := range []struct{ from, to string }{{"gamma", "beta"}, {"gamma", "gamma"}, {"nope", "x"}, {"gamma", "Bad"}} {
		if _, _, err := r.RenameSkill(tc.from, tc.to); err == nil {
			t.Errorf("mv %s %s succeeded", tc.from, tc.to)
		}
	}
}

// A skill mv killed after its journal and files were written, before the
// journal was dropped: the next Open finishes it, and the emptied old
// folder goes with it (git has no empty folders; one would show as a
// skill's debris).
func TestKilledRenameLeavesNoEmptyFolder(t *testing.T) {
	r := registrytest.New(t, "alpha")
	_, before, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.RenameSkill("alpha", "gamma"); err != nil {
		t.Fatal(err)
	}
	_, after, _ := r.Head()
	moved := registrytest.ReadFile(t, r.Abs("skills/gamma/SKILL.md"))
	j := registry.Journal{Branch: "refs/heads/main", Parent: before.String(), Commit: after.String(), Changes: []registry.Change{
		{Path: "skills/alpha/SKILL.md", Delete: true},
		{Path: "skills/gamma/SKILL.md", Data: []byte(moved)},
	}}
	// Where the kill landed: the files moved, the old folder still there.
	if err := os.Mkdir(r.Abs("skills/alpha"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(j)
	if err := os.WriteFile(r.JournalPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	r2, err := registry.Open(r.Root(), registry.Options{Roots: []string{"skills"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r2.JournalPath()); !os.IsNotExist(err) {
		t.Fatal("journal still there after recovery")
	}
	if _, err := os.Stat(r2.Abs("skills/alpha")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replayed mv left skills/alpha: %v", err)
	}
	if _, err := r2.Skill("gamma"); err != nil {
		t.Errorf("gamma after recovery: %v", err)
	}
	if _, err := os.Stat(r2.Abs("skills")); err != nil {
		t.Errorf("the skill root went with it: %v", err)
	}
}

func TestImportSkills(t *testing.T) {
	r := registrytest.New(t, "alpha")
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "one", "SKILL.md"), "---\nname: one\ndescription: The first.\n---\n# One\n")
	writeFile(t, filepath.Join(src, "one", "scripts", "go.sh"), "echo one\n")
	writeFile(t, filepath.Join(src, "two", "SKILL.md"), "---\nname: two\ndescription: The second.\n---\n")
	writeFile(t, filepath.Join(src, "not-a-skill", "README.md"), "no SKILL.md here\n")

	moved, warnings, hash, err := r.ImportSkills([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	if hash.IsZero() || len(moved) != 2 || moved[0].Name != "one" || moved[1].Name != "two" || len(warnings) != 0 {
		t.Fatalf("ImportSkills = %+v, %v, %s", moved, warnings, hash)
	}
	if got := registrytest.ReadFile(t, r.Abs("skills/one/scripts/go.sh")); got != "echo one\n" {
		t.Errorf("go.sh: %q", got)
	}
	if got := registrytest.Git(t, r, "status", "--porcelain"); got != "" {
		t.Errorf("work tree not clean after import:\n%s", got)
	}
	if n := strings.Count(registrytest.Git(t, r, "log", "--format=%H"), "\n"); n != 3 { // init, add, import
		t.Errorf("want 3 commits, got %d", n)
	}

	// Names that exist are refused; so is a skill that fails the lint, and
	// nothing of a refused import is written.
	if _, _, _, err := r.ImportSkills([]string{filepath.Join(src, "one")}); !errors.Is(err, registry.ErrExists) {
		t.Errorf("import of an existing name: %v", err)
	}
	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, "good", "SKILL.md"), "---\nname: good\ndescription: fine\n---\n")
	writeFile(t, filepath.Join(bad, "three", "SKILL.md"), "---\nname: four\ndescription: d\n---\n")
	_, _, _, err = r.ImportSkills([]string{bad})
	if !errors.Is(err, errkind.ErrInvalid) || !strings.Contains(err.Error(), `"four" does not match the folder name "three"`) {
		t.Errorf("import of a skill whose name does not match its folder: %v", err)
	}
	if _, err := os.Stat(r.Abs("skills/good")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused import wrote skills/good: %v", err)
	}
	if _, _, _, err := r.ImportSkills([]string{filepath.Join(src, "not-a-skill")}); !errors.Is(err, errkind.ErrInvalid) {
		t.Errorf("import of a folder without skills: %v", err)
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
