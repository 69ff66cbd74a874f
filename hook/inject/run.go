package inject

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
)

// Env is one registry as the prompt hook sees it.
type Env struct {
	Root     string
	Local    local.Dir
	Settings *Settings
	// Refresh brings the compiled index up to date in this process, for
	// when there is none to answer from (megagit); nil: the prompt hook
	// returns ErrStale then (megagit-hook, which reads no SKILL.md).
	Refresh func() (index.Compiled, error)
	// Query loads the settings' static model (ModelBuiltin, ModelOther)
	// and returns how it embeds a prompt and its key (index.Vectors.Key);
	// an error routes the prompt lexically, noted in the hook log. nil:
	// this process has no model code.
	Query func() (embed func(string) ([]float32, error), key string, err error)
	// Fallback is Query of the fallback model (Settings.FallbackID); nil:
	// none, or this process has no model code.
	Fallback func() (embed func(string) ([]float32, error), key string, err error)
	// Prewarm starts loading the model on another core while the
	// compiled index is read; nil does nothing.
	Prewarm func()
}

// Options are one prompt hook call's.
type Options struct {
	Agent string
	Dir   string // -C: where to look for the registry instead of the agent's cwd
	// UserRegistry is the user registry of a user-scope hook
	// (--user-registry): used where the agent's folder has no registry
	// (hook.Locate).
	UserRegistry string
	Version      string // the megagit version, for `megagit serve`
	Start        time.Time
	Now          func() time.Time
	In           io.Reader
	Out          io.Writer
	ErrOut       io.Writer
	// Open finds the registry from a folder. When it returns an Env and an
	// error, the error is logged in that registry.
	Open func(dir string) (*Env, error)
	// Megagit is the megagit binary, which refreshes a compiled index
	// (RefreshArgs) when it may be out of date: before the hook answers,
	// within half the time left, and else in the background, for the next
	// prompt (see Settings.Refresh). nil: the hook refreshes nothing.
	Megagit func() (string, error)
}

// StartEnv is set by megagit-hook when it hands a prompt over to `megagit
// hook prompt`: when it started, in Unix nanoseconds, so the deadline
// counts from then.
const StartEnv = "MEGAGIT_HOOK_START"

// DefaultDeadline is hook.deadline_ms's default, used before the config is read.
const DefaultDeadline = 500 * time.Millisecond

// errDeadline is logged when the hook ran out of time and printed nothing.
var errDeadline = errors.New("deadline exceeded; printed nothing")

// cacheGrace bounds how long a hook that ran out of time (and prints
// nothing) still waits for a cache it is writing, so the next call finds it.
const cacheGrace = 20 * time.Second

// state is what the worker shares with the deadline watcher.
type state struct {
	env      atomic.Pointer[Env]
	where    atomic.Pointer[string] // the folder the registry is looked for from, once the event is read
	deadline chan time.Duration     // the configured deadline, once known
	guard    cacheGuard             // held while the compiled index is rebuilt and saved
	input    []byte                 // stdin, for a caller that hands over on ErrStale
	refresh  atomic.Bool            // the compiled index should be refreshed after answering

	// commit orders the worker's writes of the session memory and the
	// decision against the deadline, so that what they record is what the
	// agent got: once the hook has given up (printing nothing) the worker
	// writes neither, and once the worker has written them the hook prints
	// its answer, even if the deadline passes meanwhile.
	commit    sync.Mutex
	gaveUp    bool
	committed bool
}

// beginCommit is called by the worker before it records the prompt; false
// means the hook already gave up, or the deadline has passed and it is
// about to, so nothing may be recorded. After true, the worker calls
// endCommit.
func (st *state) beginCommit(start time.Time, deadline time.Duration) bool {
	st.commit.Lock()
	if st.gaveUp || time.Since(start) >= deadline {
		st.gaveUp = true
		st.commit.Unlock()
		return false
	}
	return true
}

func (st *state) endCommit() {
	st.committed = true
	st.commit.Unlock()
}

// giveUp is called when the deadline passes; false means the worker has
// already recorded the prompt (it may still be writing: giveUp waits), so
// the hook must print the answer instead.
func (st *state) giveUp() bool {
	st.commit.Lock()
	defer st.commit.Unlock()
	if st.committed {
		return false
	}
	st.gaveUp = true
	return true
}

// localDir is the registry's local folder, once found.
func (st *state) localDir() *local.Dir {
	if e := st.env.Load(); e != nil {
		return &e.Local
	}
	return nil
}

// findWait bounds how long a hook past its deadline waits for the event
// to be read, to learn where the registry is.
const findWait = 100 * time.Millisecond

// logDir is where a hook that gave up logs why: the registry's local
// folder as the worker opened it, else as found (a walk up the folders,
// no config read) from where the event says, waiting at most findWait for
// the event; nil when there is none.
func (st *state) logDir(lockTimeout time.Duration) *local.Dir {
	for end := time.Now().Add(findWait); ; time.Sleep(5 * time.Millisecond) {
		if d := st.localDir(); d != nil {
			return d
		}
		if w := st.where.Load(); w != nil {
			root, err := local.Find(*w)
			if err != nil {
				return nil
			}
			d := local.Open(root, lockTimeout)
			return &d
		}
		if time.Now().After(end) {
			return nil
		}
	}
}

type outcome struct {
	out string
	err error
}

// Run is the prompt hook: it reads the agent's event from opts.In and
// prints what to inject, all within the deadline (the default one until
// the config is known). Any failure prints nothing and is logged. It
// returns ErrStale, with what it read from stdin, when it printed and
// logged nothing because this process cannot answer (see ErrStale).
func Run(opts Options) (stdin []byte, err error) {
	defer NoGC()()
	defer hookProcs()()
	defer index.MapIndexFiles()()
	st := &state{deadline: make(chan time.Duration, 1), guard: newCacheGuard()}
	done := make(chan outcome, 1)
	go func() {
		debug.SetPanicOnFault(true) // see index.MapIndexFiles
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		out, err := work(opts, st)
		done <- outcome{out: out, err: err}
	}()
	timer := time.NewTimer(DefaultDeadline - time.Since(opts.Start))
	defer timer.Stop()
	for {
		select {
		case d := <-st.deadline:
			timer.Reset(d - time.Since(opts.Start))
		case r := <-done:
			switch {
			case errors.Is(r.err, ErrStale):
				return st.input, r.err
			case r.err != nil:
				hook.Log(opts.ErrOut, st.localDir(), opts.Now(), opts.Agent, "prompt", r.err)
			default:
				fmt.Fprint(opts.Out, r.out)
			}
			refreshAfter(opts, st)
			return nil, nil
		case <-timer.C:
			if !st.giveUp() {
				continue // recorded as answered: print the answer, which is on its way
			}
			hook.Log(opts.ErrOut, st.logDir(time.Second), opts.Now(), opts.Agent, "prompt", fmt.Errorf("%w (%s)", errDeadline, time.Since(opts.Start).Round(time.Millisecond)))
			st.guard.wait(cacheGrace)
			refreshAfter(opts, st)
			return nil, nil
		}
	}
}

// refreshAfter starts the check of the compiled index the worker asked
// for, once the answer is out (with hook.refresh "wait", it waits for it);
// a failure is logged.
func refreshAfter(opts Options, st *state) {
	e := st.env.Load()
	if !st.refresh.Load() || e == nil || e.Settings.Refresh == "off" {
		return
	}
	exe, err := megagit(opts)
	if err != nil {
		return // nothing to check with; a refresh when the quick stamp changes is all there is
	}
	err = func() error {
		done, err := startRefresh(exe, e.Root)
		if err != nil || e.Settings.Refresh != "wait" {
			return err
		}
		select {
		case err := <-done:
			return err
		case <-time.After(cacheGrace):
			return nil
		}
	}()
	if err != nil {
		hook.Log(opts.ErrOut, &e.Local, opts.Now(), opts.Agent, "prompt", fmt.Errorf("refreshing the compiled index: %w", err))
	}
}

// hookMemoryLimit is the heap size at which the prompt hook collects
// garbage after all (see NoGC): above what a warm call allocates at
// 10,000 skills (peak RSS 40 MB with the built-in model, most of it the
// mapped index), a bound should a registry be larger still.
const hookMemoryLimit = 256 << 20

// NoGC turns the garbage collector off for a process that answers one
// call and exits (the prompt hook, megagit route), up to hookMemoryLimit,
// and returns what restores the settings. A warm call allocates a few
// megabytes that stay live to the end, so collecting would only take a
// core from the work, and reusing memory saves no page faults; the limit
// keeps a runaway heap bounded. (Rebuilding the compiled index turns it
// back on: see index.Refresh.)
func NoGC() (restore func()) {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(hookMemoryLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(pct)
	}
}

// hookMaxProcs is how many cores the prompt hook's work can use at once:
// its worker and one helper (the model's load, half the vectors, the
// ranking with the project's name).
const hookMaxProcs = 2

// hookProcs fits GOMAXPROCS to the prompt hook's work (hookMaxProcs) and
// returns what restores it: on a machine of many cores, every goroutine
// the hook starts would otherwise wake idle processors that spin looking
// for work, system calls that buy nothing in a process this short.
func hookProcs() (restore func()) {
	was := runtime.GOMAXPROCS(0)
	if was <= hookMaxProcs {
		return func() {}
	}
	runtime.GOMAXPROCS(hookMaxProcs)
	return func() { runtime.GOMAXPROCS(was) }
}

// openEvent reads the agent's event from stdin (kept in *input for a
// caller that hands over on ErrStale), parses it (needPrompt: a prompt
// event) and opens the registry it names. opened gets the registry as soon
// as it is open, so a failure to parse the event is logged in it.
func openEvent(opts Options, needPrompt bool, input *[]byte, opened func(*Env)) (hook.Input, *Env, error) {
	if err := hook.CheckAgent(opts.Agent); err != nil {
		return hook.Input{}, nil, err
	}
	data, err := hook.ReadInput(opts.In)
	*input = data
	if err != nil {
		return hook.Input{}, nil, err
	}
	in, perr := hook.ParseInput(data, needPrompt)
	if err := hook.CheckSender(opts.Agent, in); perr == nil && err != nil {
		return in, nil, err
	}
	where, err := hook.Locate(opts.Dir, opts.UserRegistry, in.Cwd, opts.Agent)
	if err != nil {
		return in, nil, err
	}
	e, err := opts.Open(where)
	if errors.Is(err, ErrStale) {
		return in, nil, err
	}
	if e != nil {
		opened(e)
	}
	if perr != nil {
		return in, nil, perr
	}
	return in, e, err
}

// work decides what to inject and returns the agent's stdout.
func work(opts Options, st *state) (string, error) {
	open := opts.Open
	opts.Open = func(dir string) (*Env, error) {
		st.where.Store(&dir)
		return open(dir)
	}
	in, e, err := openEvent(opts, true, &st.input, func(e *Env) { st.env.Store(e) })
	if err != nil {
		return "", err
	}
	s := e.Settings
	st.deadline <- s.Deadline
	logNotes(opts, e, "prompt")
	docs, rr, err := routePrompt(opts, e, st, in.Prompt, hook.ProjectWords(in.Cwd), route.WhereAt(in.Cwd, in.Prompt, nil))
	if err != nil {
		return "", err
	}

	var sess *hook.Session
	if in.SessionID != "" {
		if sess, err = hook.LoadSession(e.Local, in.SessionID); err != nil {
			return "", err
		}
		sess.Agent = opts.Agent
	} else {
		sess = &hook.Session{}
	}
	turn := sess.AddPrompt(in.Prompt)
	var fresh []int
	var already []string
	for _, d := range rr.Res.Emitted {
		if sess.InContext(docs[d].ID) != nil {
			already = append(already, docs[d].ID)
		} else {
			fresh = append(fresh, d)
		}
	}
	// The paths as the agent opens them from its working directory.
	shown, shownIDs := agentDocs(docs, fresh, e.Root, in.Cwd)
	rendered := route.Render(shown, shownIDs, s.Route)
	for i, d := range rendered.Included {
		rendered.Included[i] = fresh[d]
	}
	// The instruction goes with the injection only when no SessionStart
	// hook gave it, once per session (and again after a compaction); a
	// prompt without a session id cannot be remembered, so it always does.
	instruct := sess.ID == "" || sess.NeedsInstruction()
	instruction := ""
	if instruct {
		instruction = hook.Instruction(opts.Agent, hook.ReportInstruction)
	}
	text := hook.InjectionText(rendered.Text, already, instruction)
	now := opts.Now()
	if !s.Shadow {
		sess.Instructed = sess.Instructed || (instruct && text != "")
		for _, d := range rendered.Included {
			doc := docs[d]
			if inj := sess.Injected(doc.ID); inj != nil {
				inj.Shown = turn // in full again after a compaction; verdicts stay with the first
				continue
			}
			sess.Injections = append(sess.Injections, hook.Injection{
				Skill: doc.ID, Path: doc.Path, Turn: turn, Prompt: sess.Prompts[turn],
				At: now.UTC().Format(time.RFC3339), Words: hook.RelevantWords(doc.ID, doc.Triggers),
			})
		}
	}
	if !st.beginCommit(opts.Start, s.Deadline) {
		return "", errDeadline
	}
	defer st.endCommit()
	// A registry megagit may read but not write (a team registry on a
	// read-only mount) still routes: the prompt is answered from what can
	// be read, without session memory or decision log (doctor says so).
	readOnly := false
	if sess.ID != "" {
		if err := savePromptSession(e.Local, sess, now); err != nil {
			if !local.IsReadOnly(err) {
				return "", err
			}
			readOnly = true
		}
	}
	dec := decisionRecord(opts.Agent, in, s, docs, rr, rendered.Included, already, now)
	dec.LatencyMS = float64(time.Since(opts.Start).Microseconds()) / 1000
	if line, err := json.Marshal(dec); err == nil && !readOnly {
		if err := e.Local.Append(decisionlog.File, line, decisionlog.MaxBytes); err != nil && !local.IsReadOnly(err) {
			return "", err
		}
	}
	if s.Shadow {
		return "", nil
	}
	return hook.Render(opts.Agent, s.Output, text)
}

// note records in hook.log how a prompt was routed when that was not the
// configured way; the hook's output is unaffected.
func note(opts Options, e *Env, err error) {
	line := fmt.Sprintf("%s prompt: note: %s", opts.Now().UTC().Format(time.RFC3339), err)
	_ = e.Local.Append(hook.LogFile, []byte(line), hook.LogMaxBytes)
}

// logNotes logs the bad settings set aside in e's settings (Settings.Notes),
// on every call: the hook answers, but not quite as configured.
func logNotes(opts Options, e *Env, verb string) {
	for _, n := range e.Settings.Notes {
		hook.Log(opts.ErrOut, &e.Local, opts.Now(), opts.Agent, verb, errors.New(n))
	}
}
