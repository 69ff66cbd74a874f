package registry_test

import (
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

// A reason with NUL, ESC and BEL bytes and a multi-line context are kept
// clean: git fsck --strict accepts the commit, the ledger holds one clean
// line, and the SKILL.md's evidence holds the clean context.
func TestVerdictTextIsCleanedAtTheBoundary(t *testing.T) {
	r := registrytest.New(t, "alpha")
	in := registry.VerdictInput{Skill: "alpha", Verdict: lifecycle.Helpful,
		Reason: "found\x00 it \x1b]0;pwned\a" + strings.Repeat("x", 600), Context: "fix\n\tthe \x1b[2Jtests", Session: "s\x001"}
	clean, notes := registry.CleanInput(in)
	if len(notes) != 1 || notes[0] != "reason clipped from 617 to 500 characters" {
		t.Fatalf("notes %q", notes)
	}
	applied, _, err := r.RecordVerdicts([]registry.VerdictInput{in}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	en := applied[0].Entry
	if en.Reason != clean.Reason || !strings.HasPrefix(en.Reason, "found it ]0;pwnedxxx") || !strings.HasSuffix(en.Reason, "x…") {
		t.Errorf("reason %q", en.Reason)
	}
	if en.Context != "fix the [2Jtests" || en.Session != "s1" {
		t.Errorf("context %q, session %q", en.Context, en.Session)
	}
	registrytest.Git(t, r, "fsck", "--strict")
	if msg := registrytest.Git(t, r, "log", "-1", "--format=%B"); strings.ContainsAny(msg, "\x00\x1b\a") {
		t.Errorf("commit message keeps control characters: %q", msg)
	}
	if skill := registrytest.ReadFile(t, registrytest.SkillPath(r, "alpha")); !strings.Contains(skill, `"fix the [2Jtests"`) {
		t.Errorf("SKILL.md evidence:\n%s", skill)
	}
}
