package registry_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/registrytest"
)

func TestVerdictIsOneCommitWithTrailers(t *testing.T) {
	r := registrytest.New(t, "alpha", "beta")
	applied, hash, err := r.RecordVerdicts([]registry.VerdictInput{
		{Skill: "alpha", Verdict: lifecycle.Helpful, Reason: "worked", Session: "s1"},
		{Skill: "beta", Verdict: lifecycle.Harmful, Reason: "broke", Session: "s1"},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 2 || hash.IsZero() {
		t.Fatalf("applied %d, hash %s", len(applied), hash)
	}
	msg := registrytest.Git(t, r, "log", "-1", "--format=%B")
	for _, want := range []string{"Megagit-Skill: alpha", "Megagit-Skill: beta", "Megagit-Verdict: HELPFUL", "Megagit-Verdict: HARMFUL", "Megagit-Session: s1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	if got := registrytest.Git(t, r, "status", "--porcelain"); got != "" {
		t.Errorf("work tree not clean after verdict:\n%s", got)
	}
	if n := strings.Count(registrytest.Git(t, r, "log", "--format=%H"), "\n"); n != 4 { // init, 2 adds, 1 verdict
		t.Errorf("want 4 commits, got %d", n)
	}
	registrytest.Git(t, r, "fsck", "--strict")
}

func TestUserStagedWorkIsNotCommitted(t *testing.T) {
	r := registrytest.New(t, "alpha")
	if err := os.WriteFile(r.Abs("notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	registrytest.Git(t, r, "add", "notes.txt")
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	if files := registrytest.Git(t, r, "show", "--name-only", "--format=", "HEAD"); strings.Contains(files, "notes.txt") {
		t.Fatalf("megagit committed the user's staged file:\n%s", files)
	}
	if st := registrytest.Git(t, r, "status", "--porcelain"); !strings.Contains(st, "A  notes.txt") {
		t.Fatalf("user's staged file lost its staging: %q", st)
	}
}

func TestDirtySkillIsRefused(t *testing.T) {
	r := registrytest.New(t, "alpha")
	p := registrytest.SkillPath(r, "alpha")
	edited := registrytest.ReadFile(t, p) + "my edit\n"
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := r.RecordVerdicts([]registry.VerdictInput{{Skill: "alpha", Verdict: lifecycle.Harmful}}, time.Now())
	if !errors.Is(err, registry.ErrDirty) {
		t.Fatalf("want registry.ErrDirty, got %v", err)
	}
	if registrytest.ReadFile(t, p) != edited {
		t.Fatal("the user's edit was changed")
	}
	if _, err := os.Stat(r.Abs(ledger.Path("alpha"))); !os.IsNotExist(err) {
		t.Fatal("a ledger line was written for a refused verdict")
	}
}

// TestCrashBetweenWriteAndCommitIsRepaired simulates a writer killed after
// it journaled a commit and wrote the skill file, but before the ledger, the
// index and the branch moved: the next registry.Open finishes the job.
func TestCrashBetweenWriteAndCommitIsRepaired(t *testing.T) {
	for _, stage := range []string{"journal-only", "files-written", "branch-moved"} {
		t.Run(stage, func(t *testing.T) {
			r := registrytest.New(t, "alpha")
			_, before, err := r.Head()
			if err != nil {
				t.Fatal(err)
			}
			// Build what a verdict would write, via a real commit we then undo.
			registrytest.Verdict(t, r, "alpha", lifecycle.Harmful)
			_, after, _ := r.Head()
			skillData := registrytest.ReadFile(t, registrytest.SkillPath(r, "alpha"))
			ledgerData := registrytest.ReadFile(t, r.Abs(ledger.Path("alpha")))
			j := registry.Journal{Branch: "refs/heads/main", Parent: before.String(), Commit: after.String(), Changes: []registry.Change{
				{Path: ledger.Path("alpha"), Data: []byte(ledgerData)},
				{Path: "skills/alpha/SKILL.md", Data: []byte(skillData)},
			}}
			registrytest.Git(t, r, "reset", "-q", "--hard", before.String())
			if stage == "files-written" {
				os.WriteFile(registrytest.SkillPath(r, "alpha"), []byte(skillData), 0o644)
			}
			if stage == "branch-moved" {
				registrytest.Git(t, r, "update-ref", "refs/heads/main", after.String())
			}
			data, _ := json.Marshal(j)
			if err := os.WriteFile(r.JournalPath(), data, 0o644); err != nil {
				t.Fatal(err)
			}
			r2, err := registry.Open(r.Root(), registry.Options{Roots: []string{"skills"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(r2.JournalPath()); !os.IsNotExist(err) {
				t.Fatal("journal still there after recovery")
			}
			if st := registrytest.Git(t, r2, "status", "--porcelain"); st != "" {
				t.Fatalf("work tree not clean after recovery:\n%s", st)
			}
			if head := strings.TrimSpace(registrytest.Git(t, r2, "rev-parse", "HEAD")); head != after.String() {
				t.Fatalf("HEAD %s, want the journaled commit %s", head, after)
			}
			s, err := r2.Skill("alpha")
			if err != nil {
				t.Fatal(err)
			}
			if s.Evidence.HarmfulCount != 1 {
				t.Fatalf("harmful %d after recovery, want 1", s.Evidence.HarmfulCount)
			}
		})
	}
}

func TestTornJournalIsDiscarded(t *testing.T) {
	r := registrytest.New(t, "alpha")
	os.WriteFile(r.JournalPath(), []byte(`{"branch": "refs/hea`), 0o644)
	var warned []string
	r2, err := registry.Open(r.Root(), registry.Options{Roots: []string{"skills"}, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r2.JournalPath()); !os.IsNotExist(err) {
		t.Fatal("torn journal kept")
	}
	if len(warned) != 1 {
		t.Fatalf("want one warning, got %v", warned)
	}
	registrytest.Verdict(t, r2, "alpha", lifecycle.Helpful)
}

func TestRevertRemovesOnlyThatVerdict(t *testing.T) {
	r := registrytest.New(t, "alpha")
	registrytest.Verdict(t, r, "alpha", lifecycle.Harmful)
	applied, _, err := r.RecordVerdicts([]registry.VerdictInput{{Skill: "alpha", Verdict: lifecycle.Harmful, Context: "second"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Verdict(t, r, "alpha", lifecycle.Helpful)
	removed, _, err := r.Revert(applied[0].Entry.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].ID != applied[0].Entry.ID {
		t.Fatalf("removed %+v", removed)
	}
	s, _ := r.Skill("alpha")
	if s.Evidence.HarmfulCount != 1 || s.Evidence.HelpfulCount != 1 {
		t.Fatalf("counts after revert: %+v", s.Evidence)
	}
	for _, c := range s.Evidence.HarmfulContexts {
		if c == "second" {
			t.Fatal("reverted verdict's context kept")
		}
	}
	if _, _, err := r.Revert(applied[0].Entry.ID, time.Now()); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("second revert: want registry.ErrNotFound, got %v", err)
	}
}

func TestResyncRebuildsFromLedger(t *testing.T) {
	r := registrytest.New(t, "alpha")
	for i := 0; i < 3; i++ {
		registrytest.Verdict(t, r, "alpha", lifecycle.Harmful)
	}
	// Someone hand-edits the counts and commits it.
	p := registrytest.SkillPath(r, "alpha")
	data := strings.Replace(registrytest.ReadFile(t, p), "harmful_count: 3", "harmful_count: 0", 1)
	data = strings.Replace(data, "status: archived", "status: active", 1)
	os.WriteFile(p, []byte(data), 0o644)
	registrytest.Git(t, r, "commit", "-qam", "hand edit")
	res, hash, err := r.Resync("")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || hash.IsZero() || res[0].After.Status != lifecycle.Archived || res[0].After.HarmfulCount != 3 {
		t.Fatalf("resync: %+v %s", res, hash)
	}
	res, hash, err = r.Resync("")
	if err != nil || len(res) != 0 || !hash.IsZero() {
		t.Fatalf("second resync changed something: %+v %s %v", res, hash, err)
	}
}

func TestLockTimesOut(t *testing.T) {
	r := registrytest.New(t, "alpha")
	l, err := r.Local().Acquire(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	r2, err := registry.Open(r.Root(), registry.Options{Roots: []string{"skills"}, LockTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r2.RecordVerdicts([]registry.VerdictInput{{Skill: "alpha", Verdict: lifecycle.Helpful}}, time.Now())
	if !errors.Is(err, local.ErrLocked) {
		t.Fatalf("want local.ErrLocked, got %v", err)
	}
	if !r.Local().LockState().Held {
		t.Fatal("LockState does not see the held lock")
	}
}

// A writer whose clock reading predates the last committed verdict (it
// waited for the lock) must leave the skill as a time-ordered replay of its
// ledger would: what resync and doctor recompute.
func TestLateClockReadingKeepsEvidenceEqualToReplay(t *testing.T) {
	r := registrytest.New(t, "alpha")
	t2 := time.Date(2026, 11, 22, 17, 26, 3, 0, time.UTC)
	t1 := t2.Add(-time.Second)
	for _, c := range []struct {
		v  lifecycle.Verdict
		at time.Time
	}{{lifecycle.Harmful, t2}, {lifecycle.Helpful, t1}, {lifecycle.Harmful, t1}} {
		if _, _, err := r.RecordVerdicts([]registry.VerdictInput{{Skill: "alpha", Verdict: c.v}}, c.at); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := ledger.Parse("alpha.jsonl", []byte(registrytest.ReadFile(t, r.Root()+"/"+local.LedgerDir+"/alpha.jsonl")))
	for i := 1; i < len(entries); i++ {
		if !entries[i-1].Time().Before(entries[i].Time()) {
			t.Errorf("ledger times not increasing: %s then %s", entries[i-1].At, entries[i].At)
		}
	}
	if _, hash, err := r.Resync("alpha"); err != nil {
		t.Fatal(err)
	} else if !hash.IsZero() {
		t.Errorf("resync committed %s: the verdicts' evidence was not a time-ordered replay", hash)
	}
}

// No writer commits a file in a .git folder, in any spelling git refuses
// (.GIT, .git., git~1, an invisible character: git fsck --strict's
// hasDotgit), nor one under .megagit/local in any spelling.
func TestCommitRefusesDotGitAndLocalInAnySpelling(t *testing.T) {
	r := registrytest.New(t, "alpha")
	head := registrytest.Git(t, r, "rev-parse", "HEAD")
	for _, p := range []string{
		"skills/alpha/.git/config", "skills/alpha/.GIT/config", "skills/alpha/.Git", "skills/alpha/.git./config",
		"skills/alpha/git~1/config", "skills/alpha/.g\u200cit/config", ".GIT/hooks/post-checkout",
		".megagit/local/config.yaml", ".megagit/LOCAL/config.yaml", ".MEGAGIT/local/x",
	} {
		_, err := r.WriteRaw("test: add\n", []registry.Change{{Path: p, Data: []byte("[core]\n")}})
		if !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", p, err)
		}
	}
	if got := registrytest.Git(t, r, "rev-parse", "HEAD"); got != head {
		t.Fatalf("a commit was written: HEAD %s, was %s", got, head)
	}
	if _, err := r.WriteRaw("test: add\n", []registry.Change{{Path: "skills/alpha/.github/notes.md", Data: []byte("ok\n")}}); err != nil {
		t.Fatalf("a plain file: %v", err)
	}
	registrytest.Git(t, r, "fsck", "--strict")
}
