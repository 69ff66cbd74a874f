package checkup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/registry/registrytest"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/workspace"
)

func names(checks []doctor.Check) map[string]doctor.Check {
	out := map[string]doctor.Check{}
	for _, c := range checks {
		out[c.Name] = c
	}
	return out
}

// A fresh registry passes every check doctor makes of it, the lock's and
// the route index's among them, and no check needs the network offline.
func TestRunOnAFreshRegistry(t *testing.T) {
	reg := registrytest.New(t, "alpha", "beta")
	w, err := workspace.Open(reg.Root(), nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	checks := Run(w, Options{})
	got := names(checks)
	for _, want := range []string{"skills", "installed", "route-index", "serve", "sources", "trust", "adopt", "git identity", "writable"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %q check among %d", want, len(checks))
		}
	}
	for _, c := range checks {
		if c.Status == doctor.Fail {
			t.Errorf("check %s fails on a fresh registry: %s", c.Name, c.Detail)
		}
		if c.Name == "remote" || c.Name == "recovery" {
			t.Errorf("check %s made without being asked for", c.Name)
		}
	}
	if got := names(Run(w, Options{Recovered: true})); got["recovery"].Status != doctor.Warn {
		t.Errorf("a finished interrupted write is not reported: %+v", got["recovery"])
	}
}

// A skill deleted by hand from an installed source's lock is reported by
// the installs' check, through Run.
func TestRunReportsAMissingInstall(t *testing.T) {
	reg := registrytest.New(t, "alpha")
	lock := skillslock.Lock{Skills: map[string]skillslock.Entry{"gone": {
		Source: "https://example.com/skills.git", Commit: "0123456789abcdef0123456789abcdef01234567",
		Path: "skills/gone", Files: map[string]string{"SKILL.md": "00"},
	}}}
	if err := os.WriteFile(filepath.Join(reg.Root(), filepath.FromSlash(skillslock.File)), lock.Format(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := workspace.Open(reg.Root(), nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	c := names(Run(w, Options{}))["installed"]
	if c.Status != doctor.Warn || !strings.Contains(c.Detail, "gone") {
		t.Fatalf("installed = %+v, want a warning naming gone", c)
	}
}
