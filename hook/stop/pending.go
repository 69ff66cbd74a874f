package stop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
)

// PendingDir holds, in .megagit/local/, the verdicts a stop could not
// commit because git has no identity to author them with: one file per
// session, recorded by the next stop (or `megagit doctor --fix`) once an
// identity exists. Nothing the agent said is dropped for want of a
// user.name.
const PendingDir = "pending"

// pendingFile is a session's file of waiting verdicts.
func pendingFile(session string) string {
	return PendingDir + "/" + hook.SanitizeID(session) + ".json"
}

// savePending adds inputs to their session's waiting verdicts (a verdict
// already waiting, same skill, source and reason, is kept once).
func savePending(dir local.Dir, session string, inputs []registry.VerdictInput) error {
	name := pendingFile(session)
	var have []registry.VerdictInput
	if data, err := dir.Read(name); err == nil {
		if err := json.Unmarshal(data, &have); err != nil {
			have = nil // junk: replaced by what this stop found
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, in := range inputs {
		dup := false
		for _, h := range have {
			dup = dup || (h.Skill == in.Skill && h.Implicit == in.Implicit && h.Reason == in.Reason)
		}
		if !dup {
			have = append(have, in)
		}
	}
	data, err := json.Marshal(have)
	if err != nil {
		return err
	}
	if err := local.MkdirAll(filepath.Join(dir.Path(), PendingDir)); err != nil {
		return err
	}
	return dir.Write(name, data)
}

// Pending counts the verdicts waiting for a git identity, and the sessions
// they come from.
func Pending(dir local.Dir) (verdicts, sessions int) {
	for _, f := range pendingFiles(dir) {
		var in []registry.VerdictInput
		if data, err := os.ReadFile(f); err == nil && json.Unmarshal(data, &in) == nil && len(in) > 0 {
			verdicts += len(in)
			sessions++
		}
	}
	return verdicts, sessions
}

func pendingFiles(dir local.Dir) []string {
	files, _ := filepath.Glob(filepath.Join(dir.Path(), PendingDir, "*.json"))
	sort.Strings(files)
	return files
}

// FlushPending records the waiting verdicts through store, one session at
// a time, each removed once recorded; a verdict its ledger already holds
// (the same skill, session, source and reason: recorded by a flush that
// was killed before it removed the file) is not recorded twice. It stops at
// the first session that fails (still no identity: ErrNoIdentity).
func FlushPending(dir local.Dir, store Store, now time.Time) (recorded int, err error) {
	for _, f := range pendingFiles(dir) {
		data, err := os.ReadFile(f)
		if err != nil {
			return recorded, err
		}
		var inputs []registry.VerdictInput
		if err := json.Unmarshal(data, &inputs); err != nil {
			return recorded, fmt.Errorf("%s: %w: %v", f, errkind.ErrInvalid, err)
		}
		ledgers, err := store.Ledgers()
		if err != nil {
			return recorded, err
		}
		var keep []registry.VerdictInput
		for _, in := range inputs {
			if !recordedAlready(ledgers[in.Skill], in) && store.Has(in.Skill) == nil {
				keep = append(keep, in)
			}
		}
		if len(keep) > 0 {
			if err := store.Record(keep, now); err != nil {
				return recorded, err
			}
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return recorded, err
		}
		recorded += len(keep)
	}
	return recorded, nil
}

// recordedAlready says whether a ledger holds the waiting verdict in.
func recordedAlready(entries []ledger.Entry, in registry.VerdictInput) bool {
	clean, _ := registry.CleanInput(in)
	source := ledger.SourceExplicit
	if in.Implicit {
		source = ledger.SourceImplicit
	}
	for _, en := range entries {
		if en.Session == clean.Session && en.Source == source && en.Reason == clean.Reason && strings.EqualFold(en.Skill, in.Skill) {
			return true
		}
	}
	return false
}
