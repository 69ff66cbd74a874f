package registry

import (
	"bytes"
	"cmp"
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

// VerdictInput is one verdict to record.
type VerdictInput struct {
	Skill   string
	Verdict lifecycle.Verdict
	Reason  string
	Context string
	Session string
	// Implicit marks an outcome megagit derived from the session (what the
	// user and the shell said next), not one the agent reported: it moves
	// the trajectory weight only.
	Implicit bool
	Outcome  float64
}

// Applied is what a recorded verdict did.
type Applied struct {
	Entry  ledger.Entry
	Before lifecycle.Status
	After  lifecycle.Evidence
}

// skillState is a skill being edited inside one write.
type skillState struct {
	skill    *Skill
	ledger   []byte
	entries  []ledger.Entry
	evidence lifecycle.Evidence
	changed  bool
	ledgerCh bool
}

// edit is the working set of one commit: the skills it touches.
type edit struct {
	r      *Registry
	states map[string]*skillState
	order  []string
	// extra are changes made outside a skill's state (read-only skills'
	// ledgers), committed with the rest.
	extra []Change
}

func (r *Registry) newEdit() *edit { return &edit{r: r, states: map[string]*skillState{}} }

func (e *edit) state(name string) (*skillState, error) {
	if st, ok := e.states[name]; ok {
		return st, nil
	}
	s, err := e.r.Skill(name)
	if err != nil {
		return nil, err
	}
	if n := s.File.Name(); n != name && !isLink(e.r.abs(s.Path)) {
		// The agents know the skill by its name: a verdict must not land
		// on a skill they call something else.
		return nil, fmt.Errorf("%w: %s: field name: %q does not match the folder name %q; rename one of them (megagit skill mv) before recording verdicts", errkind.ErrInvalid, s.Path, n, name)
	}
	data, err := e.r.readLedger(ledger.Path(name))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	entries, problems := ledger.Parse(ledger.Path(name), data)
	for _, p := range problems {
		e.r.warn("%s", p)
	}
	st := &skillState{skill: s, ledger: data, entries: entries, evidence: s.Evidence}
	e.states[name] = st
	e.order = append(e.order, name)
	return st, nil
}

// changes renders every touched file.
func (e *edit) changes() ([]Change, error) {
	var out []Change
	for _, name := range e.order {
		st := e.states[name]
		if st.ledgerCh {
			out = append(out, Change{Path: ledger.Path(name), Data: st.ledger})
		}
		if st.changed {
			data, err := st.skill.File.WithEvidence(st.evidence)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", st.skill.Path, err)
			}
			if !bytes.Equal(data, st.skill.File.Raw()) {
				out = append(out, Change{Path: st.skill.Path, Data: data})
			}
		}
	}
	return append(out, e.extra...), nil
}

// writeLocked runs fn under the registry lock after crash recovery, then
// commits what it changed with the message it returns.
func (r *Registry) writeLocked(fn func(e *edit) (string, error)) (gitstore.Hash, error) {
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	defer lock.Release()
	if _, err := r.RecoverLocked(); err != nil {
		return gitstore.ZeroHash, err
	}
	e := r.newEdit()
	msg, err := fn(e)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	changes, err := e.changes()
	if err != nil {
		return gitstore.ZeroHash, err
	}
	if len(changes) == 0 {
		return gitstore.ZeroHash, nil
	}
	return r.commitChanges(msg, changes)
}

// RecordVerdicts appends the verdicts to their ledgers, updates each skill's
// mega_meta, and makes ONE commit with one trailer block per verdict.
func (r *Registry) RecordVerdicts(inputs []VerdictInput, now time.Time) ([]Applied, gitstore.Hash, error) {
	return r.RecordBatch(inputs, nil, now)
}

// NativeBatch is verdicts on one read-only skill, named by its key.
type NativeBatch struct {
	Key    string
	Inputs []VerdictInput
}

// RecordBatch records verdicts on this registry's skills (own) and on
// read-only skills (native, in this registry's native ledgers) in ONE
// commit: one stop of an agent's session is one commit per registry,
// whatever its skills' sources.
func (r *Registry) RecordBatch(own []VerdictInput, native []NativeBatch, now time.Time) ([]Applied, gitstore.Hash, error) {
	n := len(own)
	for _, b := range native {
		if err := checkNativeKey(b.Key); err != nil {
			return nil, gitstore.ZeroHash, err
		}
		n += len(b.Inputs)
	}
	if n == 0 {
		return nil, gitstore.ZeroHash, nil
	}
	var applied []Applied
	hash, err := r.writeLocked(func(e *edit) (string, error) {
		for _, in := range own {
			if _, err := lifecycle.ParseVerdict(string(in.Verdict)); err != nil {
				return "", fmt.Errorf("%w: %v", errkind.ErrInvalid, err)
			}
			st, err := e.state(in.Skill)
			if err != nil {
				return "", err
			}
			entry := newEntry(in, recordTime(st.entries, now))
			before := st.evidence.Status
			// The ledger is the truth: rebuild counts from it, then apply.
			st.evidence = ledger.Replay(st.evidence, st.entries)
			st.evidence = lifecycle.Apply(st.evidence, entry.Event())
			st.entries = append(st.entries, entry)
			st.ledger = ledger.Append(st.ledger, []ledger.Entry{entry})
			st.changed, st.ledgerCh = true, true
			applied = append(applied, Applied{Entry: entry, Before: before, After: st.evidence})
		}
		var keys strings.Builder
		for _, b := range native {
			if len(b.Inputs) == 0 {
				continue
			}
			change, done, err := r.applyNative(b.Key, b.Inputs, now)
			if err != nil {
				return "", err
			}
			e.extra = append(e.extra, change)
			applied = append(applied, done...)
			keys.WriteString("Megagit-Native: " + b.Key + "\n")
		}
		return verdictMessage(applied) + keys.String(), nil
	})
	if err != nil {
		return nil, gitstore.ZeroHash, err
	}
	return applied, hash, nil
}

// newEntry is the ledger line of one verdict recorded at at, its text
// cleaned (CleanInput).
func newEntry(in VerdictInput, at time.Time) ledger.Entry {
	in, _ = CleanInput(in)
	entry := ledger.Entry{
		ID: ledger.NewID(at), Skill: in.Skill, Verdict: string(in.Verdict), Source: ledger.SourceExplicit,
		Outcome: verdictOutcome(in.Verdict), Reason: in.Reason, Context: in.Context,
		Session: in.Session, At: at.UTC().Format(time.RFC3339Nano),
	}
	if in.Implicit {
		entry.Source, entry.Outcome = ledger.SourceImplicit, in.Outcome
	}
	return entry
}

// CleanInput is the verdict as its ledger line and commit keep it: reason,
// context and session id each one line of valid UTF-8 without control
// characters, within its bound (safetext). Every verdict is recorded
// cleaned; callers that can tell someone call it first for the notes, one
// per clipped field ("reason clipped from 2097152 to 500 characters").
func CleanInput(in VerdictInput) (VerdictInput, []string) {
	var notes []string
	clean := func(f safetext.Field, s *string) {
		var note string
		if *s, note = f.Clean(*s); note != "" {
			notes = append(notes, note)
		}
	}
	// What looks like a credential never enters a ledger line, which a
	// sync pushes to every teammate.
	in.Reason, in.Context = safetext.RedactSecrets(in.Reason), safetext.RedactSecrets(in.Context)
	clean(safetext.Reason, &in.Reason)
	clean(safetext.Context, &in.Context)
	clean(safetext.Session, &in.Session)
	return in, notes
}

// recordTime is the time a new ledger entry gets: now, unless the ledger
// already holds an entry at or after now. Writers take their clock before
// the registry lock, so a process that waited for it may hold an older
// time than the entry committed just before; it then takes the next
// nanosecond instead, so a skill's ledger order, commit order and time
// order agree, and the evidence applied now equals a replay in time order
// (what resync and doctor compute).
func recordTime(entries []ledger.Entry, now time.Time) time.Time {
	for _, e := range entries {
		if t := e.Time(); !t.Before(now) {
			now = t.Add(time.Nanosecond)
		}
	}
	return now
}

func verdictOutcome(v lifecycle.Verdict) float64 {
	switch v {
	case lifecycle.Helpful:
		return 1
	case lifecycle.Harmful:
		return -1
	}
	return 0
}

// oneLine is a reason the registry keeps (an unarchive's, a move's): the
// verdict reason's cleaning and bound.
func oneLine(s string) string {
	s, _ = safetext.Reason.Clean(s)
	return s
}

func verdictMessage(applied []Applied) string {
	var b strings.Builder
	if len(applied) == 1 {
		a := applied[0]
		if a.Entry.Source == ledger.SourceImplicit {
			fmt.Fprintf(&b, "outcome(%s): %s\n", a.Entry.Skill, verdictWord(a.Entry))
		} else {
			fmt.Fprintf(&b, "verdict(%s): %s\n", a.Entry.Skill, verdictWord(a.Entry))
		}
	} else {
		verdicts, outcomes := 0, 0
		for _, a := range applied {
			if a.Entry.Source == ledger.SourceImplicit {
				outcomes++
			} else {
				verdicts++
			}
		}
		var parts []string
		if verdicts > 0 {
			parts = append(parts, fmt.Sprintf("verdicts: %d", verdicts))
		}
		if outcomes > 0 {
			parts = append(parts, fmt.Sprintf("outcomes: %d", outcomes))
		}
		fmt.Fprintf(&b, "%s for session %s\n", strings.Join(parts, ", "), cmp.Or(applied[0].Entry.Session, "-"))
	}
	for _, a := range applied {
		b.WriteString("\n")
		if a.Entry.Reason != "" && len(applied) == 1 {
			b.WriteString(a.Entry.Reason + "\n\n")
		}
		b.WriteString(trailerBlock(a))
	}
	return b.String()
}

// verdictWord is how a commit subject names a ledger line: the verdict,
// or for an implicit outcome its value and signal ("+1.00, exit-code"),
// never a verdict word: an outcome is what the session showed, not the
// agent's judgement.
func verdictWord(en ledger.Entry) string {
	if en.Source == ledger.SourceImplicit {
		return OutcomeWord(en.Outcome, en.Reason)
	}
	return en.Verdict
}

// OutcomeWord names an implicit outcome: its value and its signal, read
// from its reason ("implicit exit-code: ..."): "+1.00 (exit-code)".
func OutcomeWord(value float64, reason string) string {
	signal, _, ok := strings.Cut(strings.TrimPrefix(reason, "implicit "), ":")
	if !ok || !strings.HasPrefix(reason, "implicit ") || strings.ContainsAny(signal, " \t") {
		return fmt.Sprintf("%+.2f", value)
	}
	return fmt.Sprintf("%+.2f (%s)", value, signal)
}

func trailerBlock(a Applied) string {
	var b strings.Builder
	// An implicit outcome's block starts at its Megagit-Outcome line, a
	// verdict's at Megagit-Verdict: git log --grep 'Megagit-Verdict:
	// HELPFUL' finds the agent's verdicts only.
	if a.Entry.Source == ledger.SourceImplicit {
		fmt.Fprintf(&b, "Megagit-Outcome: %+.2f\n", a.Entry.Outcome)
	} else {
		fmt.Fprintf(&b, "Megagit-Verdict: %s\n", a.Entry.Verdict)
	}
	fmt.Fprintf(&b, "Megagit-Skill: %s\n", a.Entry.Skill)
	fmt.Fprintf(&b, "Megagit-Id: %s\n", a.Entry.ID)
	if a.Entry.Session != "" {
		fmt.Fprintf(&b, "Megagit-Session: %s\n", a.Entry.Session)
	}
	if a.Entry.Source == ledger.SourceImplicit {
		b.WriteString("Megagit-Source: implicit\n")
	}
	if len(a.Entry.Reason) > 0 {
		fmt.Fprintf(&b, "Megagit-Reason: %s\n", a.Entry.Reason)
	}
	if a.Before != a.After.Status {
		fmt.Fprintf(&b, "Megagit-Status: %s -> %s\n", a.Before, a.After.Status)
	}
	return b.String()
}

// isLink says whether p is a symbolic link (what a write refuses later,
// with its own message).
func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}
