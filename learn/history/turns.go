package history

import (
	"strings"
	"time"
)

// turns turns one session's events, in the order the file holds them,
// into uses: a typed prompt starts a turn, a use in it is a Use of that
// prompt, and what follows may spoil it (the stop hook's outcome signals,
// as far as a session file shows them):
//
//   - a shell command of the same turn, run after the use (or the use
//     itself, a shell read of the SKILL.md), that failed: a non-zero exit
//     code;
//   - the use's own tool call failing (the skill never loaded);
//   - the next typed prompt a correction (IsCorrection), or the user
//     interrupting the turn.
//
// A turn no typed prompt began (a subagent's report, a compacted summary)
// keeps no use. Memory is the uses found and the open turn's commands.
type turns struct {
	s       Session
	id, cwd string
	skip    bool // the file is not a user's session (a subagent's): no use
	uses    []Use
	prompt  string
	at      time.Time
	inTurn  bool // a typed prompt began the current turn
	first   int  // the current turn's first use
	pending int  // the first use the next typed prompt may correct
	calls   map[string]span
}

// span is the uses [from, to) a failed call spoils; own is a use's own
// tool call.
type span struct {
	from, to int
	own      bool
}

func newTurns(s Session) *turns { return &turns{s: s, calls: map[string]span{}} }

// typed starts a turn with a prompt the user typed; a correction spoils
// the previous typed turn's uses. A prompt quoting megagit's <skill-used>
// tag (a pasted transcript, or a forged one) starts a turn that keeps no
// use.
func (t *turns) typed(prompt string, at time.Time) {
	prompt = clipPrompt(prompt)
	if IsCorrection(prompt) {
		t.spoil(span{from: t.pending, to: len(t.uses)})
	}
	t.prompt, t.at = prompt, at
	t.inTurn = !strings.Contains(prompt, "<skill-used")
	t.first, t.pending = len(t.uses), len(t.uses)
	clear(t.calls)
}

// untyped starts a turn no typed prompt began.
func (t *turns) untyped() {
	t.inTurn = false
	t.first = len(t.uses)
}

// interrupted spoils the current typed turn's uses: the user stopped it.
func (t *turns) interrupted() { t.spoil(span{from: t.pending, to: len(t.uses)}) }

// use records a use of skill in the current turn, returning its index (-1
// when the turn keeps no use).
func (t *turns) use(skill, path, how string) int {
	if !t.inTurn || t.skip || skill == "" {
		return -1
	}
	at := t.at
	if at.IsZero() {
		at = t.s.ModTime
	}
	t.uses = append(t.uses, Use{Time: at, Cwd: t.cwd, Prompt: t.prompt, Skill: skill, SkillPath: path, How: how})
	return len(t.uses) - 1
}

// own registers the tool call of use i: its failure spoils that use.
func (t *turns) own(id string, i int) {
	if id != "" && i >= 0 {
		t.calls[id] = span{i, i + 1, true}
	}
}

// command registers a shell command of the current turn: its failure
// spoils the turn's uses before it (and itself, when it was a use).
func (t *turns) command(id string) {
	if id == "" {
		return
	}
	if !t.inTurn {
		t.calls[id] = span{}
		return
	}
	t.calls[id] = span{from: t.first, to: len(t.uses)}
}

// result records how call id ended. A command the user's permissions
// refused (denied) did not run and says nothing of the skill; a refused
// skill load or read loaded nothing, and spoils its use.
func (t *turns) result(id string, failed, denied bool) {
	sp, ok := t.calls[id]
	if !ok {
		return
	}
	delete(t.calls, id)
	if failed && (sp.own || !denied) {
		t.spoil(sp)
	}
}

func (t *turns) spoil(sp span) {
	for i := max(sp.from, 0); i < sp.to && i < len(t.uses); i++ {
		t.uses[i].Spoiled = true
	}
}

// finish names the session in every use.
func (t *turns) finish() []Use {
	if t.skip {
		return nil
	}
	id := t.id
	if id == "" {
		id = stem(t.s.Path)
	}
	for i := range t.uses {
		u := &t.uses[i]
		u.Agent, u.Session, u.Path = t.s.Agent, id, t.s.Path
		if u.Cwd == "" {
			u.Cwd = t.cwd
		}
	}
	return t.uses
}
