package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/skillfile"
)

// NativeLedgerDir holds the evidence of skills megagit reads but never
// writes (a native folder such as ~/.claude/skills, outside any registry):
// one ledger per skill name and SKILL.md content, so a verdict never
// attaches to another skill that later takes the same name, nor to the
// skill once its text changed.
const NativeLedgerDir = local.LedgerDir + "/native"

// NativeKey names a read-only skill's evidence: its name and the sha256
// of its SKILL.md ("name@hex").
func NativeKey(name string, skillMD []byte) string {
	sum := sha256.Sum256(skillMD)
	return name + "@" + hex.EncodeToString(sum[:])
}

// NativeLedgerPath is the registry-relative path of a read-only skill's
// ledger. A plugin skill's "plugin:skill" is written "plugin+skill" there
// ('+' is in no skill name; ':' is in no Windows file name).
func NativeLedgerPath(key string) string {
	return NativeLedgerDir + "/" + strings.Replace(key, ":", "+", 1) + ".jsonl"
}

// checkNativeKey refuses a key that could name a file elsewhere.
func checkNativeKey(key string) error {
	name, sum, ok := strings.Cut(key, "@")
	if !ok || len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return fmt.Errorf("%w: %q is not a name@sha256 key", errkind.ErrInvalid, key)
	}
	return skillfile.ValidateRef(name)
}

// NativeLedger reads a read-only skill's ledger (none: no entries).
func (r *Registry) NativeLedger(key string) ([]ledger.Entry, error) {
	if err := checkNativeKey(key); err != nil {
		return nil, err
	}
	return r.ledgerEntries(NativeLedgerPath(key))
}

// NativeEvidence is a read-only skill's evidence: its ledger replayed from
// a cold start, contexts included (there is no mega_meta to keep them).
func NativeEvidence(entries []ledger.Entry) lifecycle.Evidence {
	e := lifecycle.ColdStart()
	for _, en := range entries {
		e = lifecycle.Apply(e, en.Event())
	}
	return e
}

// RecordNativeVerdicts records verdicts on the read-only skill key names
// (every input's Skill must be its name) in this registry's native ledger
// and makes one commit; the skill's own folder is never written.
func (r *Registry) RecordNativeVerdicts(key string, inputs []VerdictInput, now time.Time) ([]Applied, gitstore.Hash, error) {
	return r.RecordBatch(nil, []NativeBatch{{Key: key, Inputs: inputs}}, now)
}

// applyNative appends verdicts to the read-only skill key's ledger, under
// the registry lock: the ledger's new content, and what each did.
func (r *Registry) applyNative(key string, inputs []VerdictInput, now time.Time) (Change, []Applied, error) {
	name, _, _ := strings.Cut(key, "@")
	rel := NativeLedgerPath(key)
	data, err := r.readLedger(rel)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Change{}, nil, err
	}
	entries, problems := ledger.Parse(rel, data)
	for _, p := range problems {
		r.warn("%s", p)
	}
	ev := NativeEvidence(entries)
	var applied []Applied
	for _, in := range inputs {
		if in.Skill != name {
			return Change{}, nil, fmt.Errorf("%w: verdict for %q recorded as %s", errkind.ErrInvalid, in.Skill, key)
		}
		if _, err := lifecycle.ParseVerdict(string(in.Verdict)); err != nil {
			return Change{}, nil, fmt.Errorf("%w: %v", errkind.ErrInvalid, err)
		}
		entry := newEntry(in, recordTime(entries, now))
		before := ev.Status
		ev = lifecycle.Apply(ev, entry.Event())
		entries = append(entries, entry)
		data = ledger.Append(data, []ledger.Entry{entry})
		applied = append(applied, Applied{Entry: entry, Before: before, After: ev})
	}
	return Change{Path: rel, Data: data}, applied, nil
}

// MergeNativeLedger adds to the read-only skill key's ledger the verdicts
// it lacks (by id), in one commit, and says how many: the evidence a
// skill gathered in a registry goes with it when it leaves (`megagit adopt
// --restore`). Nothing new: no commit.
func (r *Registry) MergeNativeLedger(key string, entries []ledger.Entry, reason string) (int, gitstore.Hash, error) {
	if err := checkNativeKey(key); err != nil {
		return 0, gitstore.ZeroHash, err
	}
	name, _, _ := strings.Cut(key, "@")
	rel := NativeLedgerPath(key)
	added := 0
	hash, err := r.Write(func() (string, []Change, error) {
		data, err := r.readLedger(rel)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", nil, err
		}
		have, _ := ledger.Parse(rel, data)
		ids := make(map[string]bool, len(have))
		for _, e := range have {
			ids[e.ID] = true
		}
		var add []ledger.Entry
		for _, e := range entries {
			if !ids[e.ID] {
				ids[e.ID] = true
				add = append(add, e)
			}
		}
		added = len(add)
		if added == 0 {
			return "", nil, nil
		}
		return fmt.Sprintf("native(%s): %d verdict(s) back\n\nMegagit-Action: evidence\nMegagit-Skill: %s\nMegagit-Reason: %s\n", name, added, name, oneLine(reason)),
			[]Change{{Path: rel, Data: ledger.Append(data, add)}}, nil
	})
	return added, hash, err
}
