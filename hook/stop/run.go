// Package stop is the stop hook: after each turn, and when a session
// ends, it reads what happened (the Claude Code transcript, or the session
// memory and the turn's final answer for Codex and Gemini CLI), takes the
// <skill-used/> tags the model wrote about skills injected in the session
// (or, in Claude Code, loaded with its Skill tool), derives implicit
// outcomes (ImplicitOutcome), and records them all as verdicts in one
// commit. It needs the git store, so only the megagit binary runs it;
// megagit-hook never links it.
package stop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/learn/history"
	"github.com/megagit/megagit/learn/learnt"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
)

// Options are one stop hook call's.
type Options struct {
	Agent string
	Dir   string // -C: where to look for the registry instead of the agent's cwd
	// UserRegistry is the user registry of a user-scope hook
	// (--user-registry): used where the agent's folder has no registry
	// (hook.Locate).
	UserRegistry string
	// Transcript is a Claude Code transcript to read instead of the
	// event's transcript_path (a person running the hook after a
	// session); it settles pending outcomes.
	Transcript string
	// Session is the session id; "": the event's, or the transcript
	// file's name.
	Session string
	// Final says the session is over: every pending implicit outcome is
	// settled.
	Final bool
	// Deadline bounds the call until it starts recording (0:
	// DefaultDeadline).
	Deadline time.Duration
	Now      func() time.Time
	In       io.Reader
	ErrOut   io.Writer
	// Open finds the registry from a folder and opens it with its config.
	// When it returns a registry and an error, the error is logged in that
	// registry.
	Open func(dir string) (*registry.Registry, error)
	// Store is where the verdicts of the registry Open opened go; nil:
	// that registry (megagit passes one over every source of skills, so a
	// team skill's verdict lands in the team registry).
	Store func(reg *registry.Registry) Store
}

// Store reads the skills' ledgers and records verdicts.
type Store interface {
	// Ledgers are every skill's ledger, by name.
	Ledgers() (map[string][]ledger.Entry, error)
	// Has says whether a skill is there to record a verdict on (nil: it is).
	Has(name string) error
	// Record records the verdicts.
	Record(inputs []registry.VerdictInput, now time.Time) error
}

// regStore is a registry as a Store.
type regStore struct{ r *registry.Registry }

func (s regStore) Ledgers() (map[string][]ledger.Entry, error) { return s.r.Ledgers() }

func (s regStore) Has(name string) error {
	_, err := s.r.Skill(name)
	return err
}

func (s regStore) Record(inputs []registry.VerdictInput, now time.Time) error {
	_, _, err := s.r.RecordVerdicts(inputs, now)
	return err
}

// DefaultDeadline bounds a stop hook call until it starts recording: a
// transcript on a hung file system, or anything else that blocks, makes it
// give up (logged) rather than hold the agent. Once it records verdicts it
// finishes, so what it logs is what the ledger holds. Claude Code gives a
// command hook 60 seconds.
const DefaultDeadline = 30 * time.Second

// errDeadline is logged when the stop hook ran out of time.
var errDeadline = errors.New("deadline exceeded; recorded nothing")

// Run is the stop hook: it reads the agent's event from opts.In and
// records the session's verdicts. It prints nothing on stdout, whatever
// happens: a failure, even a panic, is logged (see hook.Log) and the
// agent carries on. It returns within opts.Deadline unless it has begun
// recording, as the prompt hook does.
func Run(opts Options) {
	deadline := opts.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	st := &runState{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				logError(opts, st.reg.Load(), fmt.Errorf("panic: %v", p))
			}
		}()
		if err := work(opts, st); err != nil {
			logError(opts, st.reg.Load(), err)
		}
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		if !st.giveUp() {
			<-done // recording: let it finish
			return
		}
		logError(opts, st.reg.Load(), fmt.Errorf("%w (after %s)", errDeadline, deadline))
	}
}

// runState is what the worker shares with the deadline watcher: the
// registry, once open, and whether recording has begun or been given up.
type runState struct {
	reg       atomic.Pointer[registry.Registry]
	mu        sync.Mutex
	gaveUp    bool
	recording bool
}

// beginRecord is called before the first write; false: the hook has given
// up, so nothing may be written.
func (st *runState) beginRecord() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.recording = !st.gaveUp
	return st.recording
}

// giveUp is called when the deadline passes; false: recording has begun
// and the hook waits for it.
func (st *runState) giveUp() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.recording {
		return false
	}
	st.gaveUp = true
	return true
}

// logError records why the stop hook did (part of) nothing: in hook.log
// when a registry was found, and on stderr.
func logError(opts Options, reg *registry.Registry, err error) {
	var dir *local.Dir
	if reg != nil {
		l := reg.Local()
		dir = &l
	}
	hook.Log(opts.ErrOut, dir, opts.Now(), opts.Agent, "stop", err)
}

// work applies the session's verdicts. Explicit ones come only from
// <skill-used/> tags in assistant text and only for skills injected in this
// session or (Claude Code) loaded by the assistant with the Skill tool, at
// most one per skill and session (the first); implicit ones are
// ImplicitOutcome's, one per injection once settled. The ledger is checked
// too, so a rerun on the same transcript records nothing new.
func work(opts Options, st *runState) error {
	if err := hook.CheckAgent(opts.Agent); err != nil {
		return err
	}
	data, err := hook.ReadInput(opts.In)
	if err != nil {
		return err
	}
	var in hook.Input
	if len(strings.TrimSpace(string(data))) > 0 || opts.Transcript == "" {
		if in, err = hook.ParseInput(data, false); err != nil {
			return err
		}
	}
	if err := hook.CheckSender(opts.Agent, in); err != nil {
		return err
	}
	if opts.Transcript != "" {
		in.TranscriptPath = opts.Transcript
	}
	if opts.Session != "" {
		in.SessionID = opts.Session
	}
	if in.SessionID == "" && in.TranscriptPath != "" {
		in.SessionID = strings.TrimSuffix(filepath.Base(in.TranscriptPath), ".jsonl")
	}
	if in.SessionID == "" {
		return fmt.Errorf("%w: no session_id", hook.ErrBadInput)
	}
	where, err := hook.Locate(opts.Dir, opts.UserRegistry, in.Cwd, opts.Agent)
	if err != nil {
		return err
	}
	reg, err := opts.Open(where)
	if reg != nil {
		st.reg.Store(reg)
	}
	if err != nil {
		return err
	}
	sess, err := hook.LoadSession(reg.Local(), in.SessionID)
	if err != nil {
		return err
	}
	if len(sess.Injections) == 0 {
		// Nothing was injected: only a tag about a skill the agent loaded
		// itself, in a Claude Code transcript, can be about this session.
		// The transcript is read on every stop, so a quick scan for a tag
		// first spares decoding it.
		if opts.Agent != hook.AgentClaude || in.TranscriptPath == "" {
			return nil
		}
		// A tag, or a skill the agent loaded itself (which teaches routing
		// the prompt it served), in one pass over the file.
		found, err := fileMentions(in.TranscriptPath, "<skill-used", `"name":"Skill"`)
		if errors.Is(err, os.ErrNotExist) || (err == nil && !found) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	logf := func(err error) { logError(opts, reg, err) }
	var store Store = regStore{reg}
	if opts.Store != nil {
		store = opts.Store(reg)
	}
	turns, err := sessionTurns(opts.Agent, in, sess, logf)
	if err != nil {
		return err
	}
	final := opts.Final || opts.Transcript != "" || in.SessionEnded()
	ledgers, err := store.Ledgers()
	if err != nil {
		return err
	}
	if recs := selfLoaded(opts.Agent, sess, turns, func(name string) bool { return store.Has(name) == nil }, opts.Now()); len(recs) > 0 {
		if _, err := learnt.AddLearnt(reg.Local(), recs, false); err != nil {
			logf(fmt.Errorf("learning the prompts of the skills the agent loaded itself: %w", err))
		}
	}
	inputs := explicitVerdicts(logf, sess, turns, ledgers)
	inputs = append(inputs, implicitVerdicts(sess, turns, ledgers, final, inputs)...)
	if !st.beginRecord() {
		return nil // given up: the deadline is logged
	}
	// Verdicts an earlier stop kept for want of a git identity go first.
	if v, _ := Pending(reg.Local()); v > 0 {
		if n, err := FlushPending(reg.Local(), store, opts.Now()); err != nil && !errors.Is(err, registry.ErrNoIdentity) && !errors.Is(err, registry.ErrDirty) {
			logf(fmt.Errorf("recording the waiting verdicts: %w", err))
		} else if n > 0 {
			logf(fmt.Errorf("recorded %d verdict(s) that waited for a git identity", n))
		}
	}
	var keep []registry.VerdictInput
	for _, v := range inputs {
		v, notes := registry.CleanInput(v)
		for _, n := range notes {
			logf(fmt.Errorf("%s verdict for %s: %s", v.Verdict, v.Skill, n))
		}
		if err := store.Has(v.Skill); err != nil {
			why := ""
			if sess.Injected(v.Skill) == nil {
				why = " (loaded with the agent's skill tool, but not a skill of this registry)"
			}
			logf(fmt.Errorf("dropped %s verdict for %s%s: %w", v.Verdict, v.Skill, why, err))
			continue
		}
		keep = append(keep, v)
	}
	if len(keep) > 0 {
		err := store.Record(keep, opts.Now())
		switch {
		case errors.Is(err, registry.ErrNoIdentity) || errors.Is(err, registry.ErrDirty):
			// Kept, not lost: the next stop records them once git has an
			// identity, or the skill's file its owner's edits committed.
			if perr := savePending(reg.Local(), sess.ID, keep); perr != nil {
				return errors.Join(err, perr)
			}
			why := "git has an identity"
			if errors.Is(err, registry.ErrDirty) {
				why = "the skill's uncommitted edits are committed"
			}
			logf(fmt.Errorf("%d verdict(s) wait in %s until %s: %w", len(keep), filepath.Join(reg.Local().Path(), PendingDir), why, err))
		case err != nil:
			return err // session memory not saved: the next stop retries
		}
	}
	sess.Stopped = true
	return saveSession(reg, sess, opts.Now())
}

// saveSession saves the session's memory, with the tags and outcomes now
// applied, atomically: a hook killed mid-write leaves the old file.
func saveSession(reg *registry.Registry, s *hook.Session, now time.Time) error {
	s.Updated = now.UTC().Format(time.RFC3339)
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	return reg.Local().Write(hook.SessionFile(s.ID), data)
}

// selfLoaded are the prompts of turns in which the agent loaded, on its
// own (its skill tool; megagit had not injected it this session), a skill
// of the registry, as learnt prompts (learnt.Learnt): what `megagit learn
// history` learns from past sessions, kept up by every stop. A turn whose
// commands then failed, or whose next prompt corrects it, teaches nothing;
// each prompt is kept once (its key), so a stop that reads the same turns
// again adds nothing.
func selfLoaded(agent string, sess *hook.Session, turns []Turn, known func(string) bool, now time.Time) []learnt.Learnt {
	var out []learnt.Learnt
	for i, t := range turns {
		if len(t.Skills) == 0 || t.Prompt == "" {
			continue
		}
		spoiled := i+1 < len(turns) && history.IsCorrection(turns[i+1].Prompt)
		for _, c := range t.Commands {
			spoiled = spoiled || c.Done && c.ExitCode != 0
		}
		if spoiled {
			continue
		}
		prompt := learnt.CleanLearnt(t.Prompt)
		for _, name := range t.Skills {
			if prompt == "" || sess.Injected(name) != nil || !known(name) {
				continue
			}
			out = append(out, learnt.Learnt{Skill: name, Prompt: prompt, Agent: agent, Session: sess.ID, How: "skill-tool",
				Time: now.UTC(), Key: learnt.LearntKey(agent, sess.ID, name, prompt)})
		}
	}
	return out
}
