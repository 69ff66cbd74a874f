package workspace

import (
	"fmt"
	"strings"
	"time"

	"github.com/megagit/megagit/hook/stop"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/install"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/skillslock"
)

// Repair is `megagit doctor --fix`: it undoes, in order, what a killed or
// older megagit can leave behind (temp files, git locks, torn remote refs,
// then what the repairs above make (adopt's: an interrupted adopt, a
// skill an earlier adopt moved), verdicts waiting for a git identity,
// tracked per-machine files, evidence out of step with the ledger, lock
// entries of deleted skills, a stale compiled index), in the user
// registry too. say gets a whole line ("megagit: fix: ...") for each
// repair it made and for what it could not (which doctor's checks then
// report), and the warnings of rebuilding the index; the error is a
// repair that failed, the rest not run.
func (w *Workspace) Repair(now time.Time, say func(line string), above ...Recovery) error {
	fixed := func(line string) { say("megagit: fix: " + line) }
	if user, _ := w.Personal(); user != nil {
		// adopt and restore write there from here: repair what a kill left.
		if _, err := user.Reg.RemoveTempDebris(); err != nil {
			return fmt.Errorf("user registry: %w", err)
		}
		if _, err := user.Reg.RemoveStaleGitLocks(); err != nil {
			return fmt.Errorf("user registry: %w", err)
		}
		if _, _, err := user.Reg.Resync(""); err != nil {
			return fmt.Errorf("user registry: %w", err)
		}
	}
	debris, err := w.Reg.RemoveTempDebris()
	if err != nil {
		return err
	}
	if len(debris) > 0 {
		fixed(fmt.Sprintf("removed %d temp file(s) of interrupted writes", len(debris)))
	}
	locks, err := w.Reg.RemoveStaleGitLocks()
	if err != nil {
		return err
	}
	if len(locks) > 0 {
		fixed(fmt.Sprintf("removed %d git lock(s) left by a killed megagit: %s", len(locks), strings.Join(locks, ", ")))
	}
	if torn := w.Reg.RemoveTornRemoteRefs(); len(torn) > 0 {
		fixed(fmt.Sprintf("removed %d torn remote-tracking ref(s), which the next sync fetches again: %s", len(torn), strings.Join(torn, ", ")))
	}
	for _, r := range above {
		if err := r(w, now, fixed); err != nil {
			return err
		}
	}
	if v, _ := stop.Pending(w.Reg.Local()); v > 0 {
		n, err := stop.FlushPending(w.Reg.Local(), w.VerdictStore(), now)
		if err != nil {
			// Still no identity, or still uncommitted edits: doctor's
			// checks say so; the rest goes on.
			fixed(fmt.Sprintf("the waiting verdicts stay queued: %v", err))
		} else {
			fixed(fmt.Sprintf("recorded %d verdict(s) that were waiting", n))
		}
	}
	untracked, _, err := w.Reg.UntrackLocal()
	if err != nil {
		return err
	}
	if len(untracked) > 0 {
		fixed(fmt.Sprintf("stopped tracking %d file(s) under %s/ (kept on disk): %s", len(untracked), local.MachineDir, strings.Join(untracked, ", ")))
	}
	results, _, err := w.Reg.Resync("")
	if err != nil {
		return err
	}
	fixed(fmt.Sprintf("rebuilt the evidence of %d skill(s) from the ledger", len(results)))
	if gone, _, err := install.ForgetMissing(w.Reg); err != nil {
		fixed(fmt.Sprintf("%s: %v", skillslock.File, err))
	} else if len(gone) > 0 {
		fixed(fmt.Sprintf("dropped from %s the entries of skills no longer in the registry: %s", skillslock.File, strings.Join(gone, ", ")))
	}
	if _, _, _, err := w.Compiled(say, false); err != nil {
		return fmt.Errorf("compiled route index: %w", err)
	}
	if bad, err := w.Reg.HistoryProblems(); err == nil && len(bad.Hashes) > 0 {
		for _, line := range bad.RepairSteps() {
			fixed(line)
		}
	}
	return nil
}

// Recovery is a repair of a package above workspace (adopt's), which
// Repair runs once the temp files and git locks a kill left are gone:
// fixed takes a line for each repair it made.
type Recovery func(w *Workspace, now time.Time, fixed func(line string)) error

// VerdictStore records verdicts in the registry that owns each skill
// (RecordVerdictsIn), reading the other sources once: the stop hook's
// store (hook/stop.Store), and doctor's for the verdicts that waited.
func (w *Workspace) VerdictStore() *VerdictStore { return &VerdictStore{w: w} }

// VerdictStore is a workspace as the stop hook's store.
type VerdictStore struct {
	w *Workspace
	c *Catalog
}

func (s *VerdictStore) others() (*Catalog, error) {
	if s.c == nil {
		c, err := s.w.Others()
		if err != nil {
			return nil, err
		}
		s.c = c
	}
	return s.c, nil
}

// Ledgers are every skill's ledger, by name: the registry's, and those of
// the other sources' skills.
func (s *VerdictStore) Ledgers() (map[string][]ledger.Entry, error) {
	own, err := s.w.Reg.Ledgers()
	if err != nil {
		return nil, err
	}
	c, err := s.others()
	if err != nil {
		return nil, err
	}
	for name, entries := range c.Ledgers() {
		own[name] = entries
	}
	return own, nil
}

// Has says whether a skill is there to record a verdict on (nil: it is).
func (s *VerdictStore) Has(name string) error {
	c, err := s.others()
	if err != nil {
		return err
	}
	if c.Lookup(name) != nil {
		return nil
	}
	_, err = s.w.Reg.Skill(name)
	return err
}

// Record records the verdicts, each in the registry that owns its skill.
func (s *VerdictStore) Record(inputs []registry.VerdictInput, now time.Time) error {
	c, err := s.others()
	if err != nil {
		return err
	}
	_, err = s.w.RecordVerdictsIn(c, inputs, now)
	return err
}
