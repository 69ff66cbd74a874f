package registry

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/oklog/ulid/v2"
)

// Use is a prompt a skill of the registry served, learnt from an agent's
// history, to share as a ledger line (ledger.ActionUse).
type Use struct {
	Skill   string
	Prompt  string // cleaned as a context is (learnt.CleanLearnt)
	Agent   string // claude, codex, gemini
	Session string
	At      time.Time
	// Key names the use (learnt.LearntKey): the line's id derives from it
	// and At, so a use shared twice, here or by a teammate, is one line.
	Key string
}

// UseEntry is the ledger line of u: its id is the same on every machine.
func UseEntry(u Use) ledger.Entry {
	sum := sha256.Sum256([]byte(u.Key))
	id := ulid.MustNew(ulid.Timestamp(u.At), bytes.NewReader(sum[:10])).String()
	return ledger.Entry{ID: id, Skill: u.Skill, Action: ledger.ActionUse, Source: ledger.SourceImplicit,
		Reason: "learnt from a " + u.Agent + " session", Context: u.Prompt, Session: u.Session, Agent: u.Agent,
		At: u.At.UTC().Format(time.RFC3339Nano)}
}

// ShareUses appends to each skill's ledger the uses it does not hold yet,
// in one commit whose Megagit-Id trailers let `megagit revert` take them
// back, and returns the lines added (none: no commit). Only the ledger
// changes: a use is no verdict, so no SKILL.md is rewritten.
func (r *Registry) ShareUses(uses []Use) ([]ledger.Entry, gitstore.Hash, error) {
	var added []ledger.Entry
	hash, err := r.writeLocked(func(e *edit) (string, error) {
		for _, u := range uses {
			st, err := e.state(u.Skill)
			if err != nil {
				return "", err
			}
			en := UseEntry(u)
			if err := en.Validate(); err != nil {
				return "", fmt.Errorf("%s: %w", ledger.Path(u.Skill), err)
			}
			if HoldsEntry(st.entries, en) {
				continue
			}
			st.entries = append(st.entries, en)
			st.ledger = ledger.Append(st.ledger, []ledger.Entry{en})
			st.ledgerCh = true
			added = append(added, en)
		}
		if len(added) == 0 {
			return "", nil
		}
		return shareMessage(added), nil
	})
	if hash.IsZero() {
		added = nil
	}
	return added, hash, err
}

// HoldsEntry says whether entries hold en: its id, or (en a shared use)
// a use of the same prompt.
func HoldsEntry(entries []ledger.Entry, en ledger.Entry) bool {
	for _, x := range entries {
		if x.ID == en.ID || en.Action == ledger.ActionUse && x.Action == ledger.ActionUse && x.Context == en.Context {
			return true
		}
	}
	return false
}

// shareMessage is the commit message of shared uses.
func shareMessage(added []ledger.Entry) string {
	per := map[string]int{}
	for _, en := range added {
		per[en.Skill]++
	}
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	if len(names) == 1 {
		fmt.Fprintf(&b, "learn(%s): share %d prompt(s) it served\n\n", names[0], len(added))
	} else {
		fmt.Fprintf(&b, "learn: share %d prompt(s) %d skills served\n\n", len(added), len(names))
	}
	b.WriteString("Prompts learnt from the agents' history on this machine, shared as\nevidence of use: they route like learnt prompts and are no verdict.\n")
	for _, en := range added {
		fmt.Fprintf(&b, "\nMegagit-Action: %s\nMegagit-Skill: %s\nMegagit-Id: %s\nMegagit-Reason: %s\n", ledger.ActionUse, en.Skill, en.ID, oneLine(en.Reason))
	}
	return b.String()
}
