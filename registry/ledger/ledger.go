// Package ledger is a skill's ledger, .megagit/ledger/NAME.jsonl: one
// JSON line per verdict, outcome or action, each with a ULID, so two
// clones' ledgers merge as a union and every machine replays them alike.
// It parses, cleans, sorts and formats lines; the registry reads and
// commits the files.
package ledger

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/safetext"
	"github.com/megagit/megagit/skillfile"
	"github.com/oklog/ulid/v2"
)

// Entry is one ledger line: a verdict, an implicit outcome, or an action.
type Entry struct {
	ID      string  `json:"id"`
	Skill   string  `json:"skill"`
	Verdict string  `json:"verdict,omitempty"` // HELPFUL | HARMFUL | NEUTRAL
	Action  string  `json:"action,omitempty"`  // "unarchive", "disable", "enable"
	Source  string  `json:"source"`            // explicit | implicit
	Outcome float64 `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	Context string  `json:"context,omitempty"`
	Session string  `json:"session,omitempty"`
	Agent   string  `json:"agent,omitempty"` // a shared use's agent (claude, codex, gemini)
	At      string  `json:"at"`
}

// Source values.
const (
	SourceExplicit = "explicit"
	SourceImplicit = "implicit"
)

// SilentReason begins the reason of an implicit outcome that found no
// signal at all (the stop hook's "implicit none: no signal"): a silent
// session, which the silence penalty counts.
const SilentReason = "implicit none:"

// The ledger's actions: lifting an archive, and the switch that keeps a
// skill from routing (disable) or lets it route again (enable). A switch is
// a ledger line, not only a frontmatter edit, so a sync's merge of two
// ledgers replays it as it replays verdicts, and `megagit log` shows it.
const (
	ActionUnarchive = "unarchive"
	ActionDisable   = "disable"
	ActionEnable    = "enable"
	// ActionUse is a prompt the skill served, learnt from an agent's
	// history and shared by `megagit learn share`: its context routes like
	// a learnt prompt; it is never a verdict and moves no status.
	ActionUse = "use"
)

// Path is the registry-relative path of a skill's ledger.
func Path(skill string) string { return local.LedgerDir + "/" + skill + ".jsonl" }

var (
	entropyMu sync.Mutex
	// entropy is made on first use, like the package's regular expressions.
	entropy = sync.OnceValue(func() *ulid.MonotonicEntropy { return ulid.Monotonic(rand.Reader, 0) })
)

// NewID is a new line's id: a ULID of t, sortable by time and unique
// across machines.
func NewID(t time.Time) string {
	entropyMu.Lock()
	defer entropyMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(t), entropy()).String()
}

// Clean is a ledger line from elsewhere (a teammate's, merged by
// sync) with its text made what a verdict recorded here holds: reason,
// context and session id each one clean line within its bound
// (safetext); notes say what was cut or cleaned.
func Clean(e Entry) (Entry, []string) {
	var notes []string
	clean := func(f safetext.Field, what string, s *string) {
		c, note := f.Clean(*s)
		switch {
		case note != "":
			notes = append(notes, note)
		case c != *s:
			notes = append(notes, what+" cleaned of control characters")
		}
		*s = c
	}
	clean(safetext.Reason, "reason", &e.Reason)
	clean(safetext.Context, "context", &e.Context)
	clean(safetext.Session, "session", &e.Session)
	clean(safetext.Session, "agent", &e.Agent)
	return e, notes
}

// Time parses At.
func (e Entry) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.At)
	return t
}

// Event converts a ledger entry for the lifecycle. Its context and session
// id are cleaned as a new verdict's are: a teammate's ledger line, merged
// by sync, reaches the SKILL.md's evidence through here.
func (e Entry) Event() lifecycle.Event {
	ctx, _ := safetext.Context.Clean(e.Context)
	session, _ := safetext.Session.Clean(e.Session)
	if e.Action == ActionUse {
		return lifecycle.Event{Use: true, Context: ctx, Session: session, At: e.Time()}
	}
	if e.Action == ActionDisable {
		reason, _ := safetext.Reason.Clean(e.Reason)
		return lifecycle.Event{Disable: true, Reason: reason, At: e.Time()}
	}
	ev := lifecycle.Event{
		Verdict:   lifecycle.Verdict(e.Verdict),
		Implicit:  e.Source == SourceImplicit,
		Silent:    e.Source == SourceImplicit && strings.HasPrefix(e.Reason, SilentReason),
		Outcome:   e.Outcome,
		Unarchive: e.Action == ActionUnarchive,
		Enable:    e.Action == ActionEnable,
		Context:   ctx,
		Session:   session,
		At:        e.Time(),
	}
	return ev
}

// Validate says what makes e no ledger line (nil: it is one).
func (e Entry) Validate() error {
	if e.ID == "" {
		return fmt.Errorf("field id: missing")
	}
	if _, err := ulid.ParseStrict(e.ID); err != nil {
		return fmt.Errorf("field id: %v", err)
	}
	if err := skillfile.ValidateRef(e.Skill); err != nil {
		return fmt.Errorf("field skill: %v", err)
	}
	if e.Action != "" {
		if e.Action != ActionUnarchive && e.Action != ActionDisable && e.Action != ActionEnable && e.Action != ActionUse {
			return fmt.Errorf("field action: unknown %q", e.Action)
		}
		if e.Action == ActionUse && strings.TrimSpace(e.Context) == "" {
			return fmt.Errorf("field context: missing (a shared use is its prompt)")
		}
	} else if _, err := lifecycle.ParseVerdict(e.Verdict); err != nil || e.Verdict != strings.ToUpper(e.Verdict) {
		return fmt.Errorf("field verdict: unknown %q", e.Verdict)
	}
	if math.IsNaN(e.Outcome) || e.Outcome < -1 || e.Outcome > 1 {
		return fmt.Errorf("field outcome: %v is outside [-1, 1]", e.Outcome)
	}
	if e.Source != SourceExplicit && e.Source != SourceImplicit {
		return fmt.Errorf("field source: unknown %q", e.Source)
	}
	if _, err := time.Parse(time.RFC3339Nano, e.At); err != nil {
		return fmt.Errorf("field at: %v", err)
	}
	return nil
}

// maxFutureSkew is how far past the reader's clock a ledger line may be
// dated and still count: a teammate's clock may run ahead by minutes, not
// by a day. A line dated later (year 9999) would sort after every verdict
// to come and never fade, so it is skipped, with a warning, until then.
const maxFutureSkew = 24 * time.Hour

// clock is the reader's clock Parse compares dates with (tests set it).
var clock = time.Now

// owner is the skill a ledger file belongs to, from its name:
// NAME.jsonl, or a read-only skill's NAME@SHA.jsonl (plugin+skill for
// plugin:skill). "" when file is no ledger's name: then any skill goes.
func owner(file string) string {
	base := file[strings.LastIndexAny(file, `/\`)+1:]
	name, ok := strings.CutSuffix(base, ".jsonl")
	if !ok {
		return ""
	}
	if key, _, native := strings.Cut(name, "@"); native {
		name = strings.Replace(key, "+", ":", 1)
	}
	return name
}

// belongs refuses a valid entry that must not count in the ledger of
// owner: one naming another skill, or dated past maxFutureSkew.
func (e Entry) belongs(owner string, now time.Time) error {
	if owner != "" && e.Skill != owner {
		return fmt.Errorf("field skill: names %q, but this is the ledger of %q", e.Skill, owner)
	}
	if at := e.Time(); at.After(now.Add(maxFutureSkew)) {
		return fmt.Errorf("field at: %s is in the future", e.At)
	}
	return nil
}

// Parse reads a ledger file. Lines that are not valid entries (a torn
// last line, junk, a merge-conflict marker), and valid ones that must not
// count (naming a skill other than the one file is the ledger of, or dated
// more than a day ahead of the clock), are skipped and reported with file
// and line, never dropping a good line; an id seen twice (a union merge of
// the same verdict) counts once.
func Parse(file string, data []byte) (entries []Entry, problems []string) {
	seen := map[string]bool{}
	who, now := owner(file), clock()
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		e, err := parseLine(line, who, now)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v", file, n+1, err))
			continue
		}
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		entries = append(entries, e)
	}
	Sort(entries)
	return entries, problems
}

// ParseLine reads one line of the ledger file as Parse does;
// the error says why it does not count.
func ParseLine(file string, line []byte) (Entry, error) {
	return parseLine(bytes.TrimSpace(line), owner(file), clock())
}

func parseLine(line []byte, owner string, now time.Time) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&e)
	if err == nil && dec.More() {
		err = fmt.Errorf("trailing data")
	}
	if err == nil {
		err = e.Validate()
	}
	if err != nil {
		return e, fmt.Errorf("skipped unreadable ledger line: %v", err)
	}
	if err := e.belongs(owner, now); err != nil {
		return e, fmt.Errorf("skipped ledger line, counted as nothing: %v", err)
	}
	return e, nil
}

// Sort orders entries by time, ties by id, so every machine replays
// a merged ledger the same way.
func Sort(entries []Entry) {
	sort.SliceStable(entries, func(i, j int) bool {
		ti, tj := entries[i].Time(), entries[j].Time()
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return entries[i].ID < entries[j].ID
	})
}

// Format renders entries one JSON object a line.
func Format(entries []Entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Append adds lines to existing ledger bytes, keeping what is there
// byte for byte (append-only, so union merges stay clean).
func Append(existing []byte, add []Entry) []byte {
	out := append([]byte(nil), existing...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, Format(add)...)
}

// Replay is current with entries' verdicts applied in order, as a verdict
// applies one: how a merge or a revert rebuilds a skill's evidence.
func Replay(current lifecycle.Evidence, entries []Entry) lifecycle.Evidence {
	evs := make([]lifecycle.Event, len(entries))
	for i, en := range entries {
		evs[i] = en.Event()
	}
	return lifecycle.Replay(current, evs)
}
