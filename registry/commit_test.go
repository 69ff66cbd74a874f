package registry

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry/local"
)

func TestVerdictIsOneCommitWithTrailers(t *testing.T) {
	r := newTestRegistry(t, "alpha", "beta")
	applied, hash, err := r.RecordVerdicts([]VerdictInput{
		{Skill: "alpha", Verdict: lifecycle.Helpful, Reason: "worked", Session: "s1"},
		{Skill: "beta", Verdict: lifecycle.Harmful, Reason: "broke", Session: "s1"},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 2 || hash.IsZero() {
		t.Fatalf("applied %d, hash %s", len(applied), hash)
	}
	msg := gitCmd(t, r, "log", "-1", "--format=%B")
	for _, want := range []string{"Megagit-Skill: alpha", "Megagit-Skill: beta", "Megagit-Verdict: HELPFUL", "Megagit-Verdict: HARMFUL", "Megagit-Session: s1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	if got := gitCmd(t, r, "status", "--porcelain"); got != "" {
		t.Errorf("work tree not clean after verdict:\n%s", got)
	}
	if n := strings.Count(gitCmd(t, r, "log", "--format=%H"), "\n"); n != 4 { // init, 2 adds, 1 verdict
		t.Errorf("want 4 commits, got %d", n)
	}
	gitCmd(t, r, "fsck", "--strict")
}

func TestUserStagedWorkIsNotCommitted(t *testing.T) {
	r := newTestRegistry(t, "alpha")
	if err := os.WriteFile(r.abs("notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, r, "add", "notes.txt")
	verdict(t, r, "alpha", lifecycle.Helpful)
	if files := gitCmd(t, r, "show", "--name-only", "--format=", "HEAD"); strings.Contains(files, "notes.txt") {
		t.Fatalf("megagit committed the user's staged file:\n%s", files)
	}
	if st := gitCmd(t, r, "status", "--porcelain"); !strings.Contains(st, "A  notes.txt") {
		t.Fatalf("user's staged file lost its staging: %q", st)
	}
}

func TestDirtySkillIsRefused(t *testing.T) {
	r := newTestRegistry(t, "alpha")
	p := skillPath(r, "alpha")
	edited := readFile(t, p) + "my edit\n"
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := r.RecordVerdicts([]VerdictInput{{Skill: "alpha", Verdict: lifecycle.Harmful}}, time.Now())
	if !errors.Is(err, ErrDirty) {
		t.Fatalf("want ErrDirty, got %v", err)
	}
	if readFile(t, p) != edited {
		t.Fatal("the user's edit was changed")
	}
	if _, err := os.Stat(r.abs(LedgerPath("alpha"))); !os.IsNotExist(err) {
		t.Fatal("a ledger line was written for a refused verdict")
	}
}

// TestCrashBetweenWriteAndCommitIsRepaired simulates a writer killed after
// it journaled a commit and wrote the skill file, but before the ledger, the
// index and the branch moved: the next Open finishes the job.
func TestCrashBetweenWriteAndCommitIsRepaired(t *testing.T) {
	for _, stage := range []string{"journal-only", "files-written", "branch-moved"} {
		t.Run(stage, func(t *testing.T) {
			r := newTestRegistry(t, "alpha")
			_, before, err := r.Head()
			if err != nil {
				t.Fatal(err)
			}
			// Build what a verdict would write, via a real commit we then undo.
			verdict(t, r, "alpha", lifecycle.Harmful)
			_, after, _ := r.Head()
			skillData := readFile(t, skillPath(r, "alpha"))
			ledgerData := readFile(t, r.abs(LedgerPath("alpha")))
			j := journal{Branch: "refs/heads/main", Parent: before.String(), Commit: after.String(), Changes: []Change{
				{Path: LedgerPath("alpha"), Data: []byte(ledgerData)},
				{Path: "skills/alpha/SKILL.md", Data: []byte(skillData)},
			}}
			gitCmd(t, r, "reset", "-q", "--hard", before.String())
			if stage == "files-written" {
				os.WriteFile(skillPath(r, "alpha"), []byte(skillData), 0o644)
			}
			if stage == "branch-moved" {
				gitCmd(t, r, "update-ref", "refs/heads/main", after.String())
			}
			data, _ := json.Marshal(j)
			if err := os.WriteFile(r.journalPath(), data, 0o644); err != nil {
				t.Fatal(err)
			}
			r2, err := Open(r.Root(), Options{Roots: []string{"skills"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(r2.journalPath()); !os.IsNotExist(err) {
				t.Fatal("journal still there after recovery")
			}
			if st := gitCmd(t, r2, "status", "--porcelain"); st != "" {
				t.Fatalf("work tree not clean after recovery:\n%s", st)
			}
			if head := strings.TrimSpace(gitCmd(t, r2, "rev-parse", "HEAD")); head != after.String() {
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
	r := newTestRegistry(t, "alpha")
	os.WriteFile(r.journalPath(), []byte(`{"branch": "refs/hea`), 0o644)
	var warned []string
	r2, err := Open(r.Root(), Options{Roots: []string{"skills"}, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r2.journalPath()); !os.IsNotExist(err) {
		t.Fatal("torn journal kept")
	}
	if len(warned) != 1 {
		t.Fatalf("want one warning, got %v", warned)
	}
	verdict(t, r2, "alpha", lifecycle.Helpful)
}

func TestRevertRemovesOnlyThatVerdict(t *testing.T) {
	r := newTestRegistry(t, "alpha")
	verdict(t, r, "alpha", lifecycle.Harmful)
	applied, _, err := r.RecordVerdicts([]VerdictInput{{Skill: "alpha", Verdict: lifecycle.Harmful, Context: "second"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	verdict(t, r, "alpha", lifecycle.Helpful)
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
	if _, _, err := r.Revert(applied[0].Entry.ID, time.Now()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second revert: want ErrNotFound, got %v", err)
	}
}

func TestResyncRebuildsFromLedger(t *testing.T) {
	r := newTestRegistry(t, "alpha")
	for i := 0; i < 3; i++ {
		verdict(t, r, "alpha", lifecycle.Harmful)
	}
	// Someone hand-edits the counts and commits it.
	p := skillPath(r, "alpha")
	data := strings.Replace(readFile(t, p), "harmful_count: 3", "harmful_count: 0", 1)
	data = strings.Replace(data, "status: archived", "status: active", 1)
	os.WriteFile(p, []byte(data), 0o644)
	gitCmd(t, r, "commit", "-qam", "hand edit")
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
	r := newTestRegistry(t, "alpha")
	l, err := r.Local().Acquire(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	r2, err := Open(r.Root(), Options{Roots: []string{"skills"}, LockTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = r2.RecordVerdicts([]VerdictInput{{Skill: "alpha", Verdict: lifecycle.Helpful}}, time.Now())
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
	r := newTestRegistry(t, "alpha")
	t2 := time.Date(2026, 11, 22, 17, 26, 3, 0, time.UTC)
	t1 := t2.Add(-time.Second)
	for _, c := range []struct {
		v  lifecycle.Verdict
		at time.Time
	}{{lifecycle.Harmful, t2}, {lifecycle.Helpful, t1}, {lifecycle.Harmful, t1}} {
		if _, _, err := r.RecordVerdicts([]VerdictInput{{Skill: "alpha", Verdict: c.v}}, c.at); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := ParseLedger("alpha.jsonl", []byte(readFile(t, r.Root()+"/"+local.LedgerDir+"/alpha.jsonl")))
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
