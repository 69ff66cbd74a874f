package registry

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
)

// The switch that keeps a skill from routing, whatever its evidence says:
// `megagit skill disable` and `enable`. It is a ledger action (so a sync
// merges it as it merges verdicts, and the history shows who turned the
// skill off and why) mirrored in the evidence block's disabled key; the
// counts, contexts, status and age of the evidence stay as they were.

// switchEntry is the ledger line of a disable or an enable, with the
// reason cleaned as a verdict's is.
func switchEntry(skill string, disable bool, reason string, entries []ledger.Entry, now time.Time) (ledger.Entry, error) {
	reason, _ = safetext.Reason.Clean(reason)
	if strings.TrimSpace(reason) == "" {
		return ledger.Entry{}, fmt.Errorf("%w: --reason is required: say why the skill is turned off or on", errkind.ErrInvalid)
	}
	action := ledger.ActionEnable
	if disable {
		action = ledger.ActionDisable
	}
	at := recordTime(entries, now)
	return ledger.Entry{ID: ledger.NewID(at), Skill: skill, Action: action, Source: ledger.SourceExplicit,
		Reason: oneLine(reason), At: at.UTC().Format(time.RFC3339Nano)}, nil
}

// checkSwitch refuses a switch that changes nothing: disabling a skill
// that is off, enabling one that is on.
func checkSwitch(skill string, disable bool, ev lifecycle.Evidence) error {
	switch {
	case disable && ev.Disabled != "":
		return fmt.Errorf("%w: skill %q is already disabled (%s)", errkind.ErrInvalid, skill, ev.Disabled)
	case !disable && ev.Disabled == "":
		return fmt.Errorf("%w: skill %q is not disabled", errkind.ErrInvalid, skill)
	}
	return nil
}

func switchMessage(en ledger.Entry) string {
	return fmt.Sprintf("%s(%s)\n\n%s\n\nMegagit-Action: %s\nMegagit-Skill: %s\nMegagit-Id: %s\nMegagit-Reason: %s\n",
		en.Action, en.Skill, en.Reason, en.Action, en.Skill, en.ID, en.Reason)
}

// SetDisabled turns a skill of the registry off (disable) or on again, in
// one commit of its ledger line and its evidence block.
func (r *Registry) SetDisabled(name string, disable bool, reason string, now time.Time) (gitstore.Hash, error) {
	return r.writeLocked(func(e *edit) (string, error) {
		st, err := e.state(name)
		if err != nil {
			return "", err
		}
		// The ledger says whether it is off (a hand edit of the block does not).
		if err := checkSwitch(name, disable, ledger.Replay(st.evidence, st.entries)); err != nil {
			return "", err
		}
		entry, err := switchEntry(name, disable, reason, st.entries, now)
		if err != nil {
			return "", err
		}
		st.evidence = lifecycle.Apply(st.evidence, entry.Event())
		st.entries = append(st.entries, entry)
		st.ledger = ledger.Append(st.ledger, []ledger.Entry{entry})
		st.changed, st.ledgerCh = true, true
		return switchMessage(entry), nil
	})
}

// SetNativeDisabled is SetDisabled for a read-only skill, by its evidence
// key (NativeKey): the line goes to its ledger in this registry, the
// skill's own folder is never written. The key holds the SKILL.md's hash,
// so the switch, like the skill's verdicts, stays with that text.
func (r *Registry) SetNativeDisabled(key string, disable bool, reason string, now time.Time) (gitstore.Hash, error) {
	if err := checkNativeKey(key); err != nil {
		return gitstore.ZeroHash, err
	}
	name, _, _ := strings.Cut(key, "@")
	rel := NativeLedgerPath(key)
	return r.Write(func() (string, []Change, error) {
		data, err := r.readLedger(rel)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", nil, err
		}
		entries, problems := ledger.Parse(rel, data)
		for _, p := range problems {
			r.warn("%s", p)
		}
		if err := checkSwitch(name, disable, NativeEvidence(entries)); err != nil {
			return "", nil, err
		}
		entry, err := switchEntry(name, disable, reason, entries, now)
		if err != nil {
			return "", nil, err
		}
		return switchMessage(entry), []Change{{Path: rel, Data: ledger.Append(data, []ledger.Entry{entry})}}, nil
	})
}
