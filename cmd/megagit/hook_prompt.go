package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type hookPromptOptions struct {
	app   *app
	agent string
}

func newHookPromptCmd(a *app) *cobra.Command {
	opts := &hookPromptOptions{app: a}
	cmd := &cobra.Command{
		Use:   "prompt --agent claude|codex|gemini",
		Short: "Prompt hook: the agent's event JSON on stdin, the skills for this prompt on stdout",
		Args:  exactArgs(0, "no arguments (the event comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			hookPromptRun(opts)
			return nil // a hook never fails the agent
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, "claude, codex or gemini")
	return cmd
}

// errDeadline is logged when the hook ran out of time and printed nothing.
var errDeadline = errors.New("deadline exceeded; printed nothing")

// promptState is what the worker shares with the deadline watcher.
type promptState struct {
	reg      atomic.Pointer[registry.Registry]
	deadline chan time.Duration // the configured deadline, once known
	caches   cacheGuard         // held while a cache is rebuilt and saved
}

// cacheGrace bounds how long a hook that ran out of time (and prints
// nothing) still waits for a cache it is writing, so the next call finds it.
const cacheGrace = 20 * time.Second

type promptOutcome struct {
	out string
	err error
}

// hookPromptRun bounds the whole hook by the deadline: the work runs in a
// goroutine and its output is printed only if it finishes in time. The
// default deadline applies until the registry's config is read.
func hookPromptRun(opts *hookPromptOptions) {
	a := opts.app
	start := time.Now()
	defer hookGC()()
	defer mapIndexFile.Store(mapIndexFile.Swap(true))
	st := &promptState{deadline: make(chan time.Duration, 1), caches: newCacheGuard()}
	done := make(chan promptOutcome, 1)
	go func() {
		debug.SetPanicOnFault(true) // see mapIndex
		defer func() {
			if p := recover(); p != nil {
				done <- promptOutcome{err: fmt.Errorf("panic: %v", p)}
			}
		}()
		out, err := promptWork(opts, st, start)
		done <- promptOutcome{out: out, err: err}
	}()
	timer := time.NewTimer(defaultHookDeadline - time.Since(start))
	defer timer.Stop()
	for {
		select {
		case d := <-st.deadline:
			timer.Reset(d - time.Since(start))
		case r := <-done:
			if r.err != nil {
				hookLog(a, st.reg.Load(), opts.agent, "prompt", r.err)
				return
			}
			fmt.Fprint(a.out, r.out)
			return
		case <-timer.C:
			hookLog(a, st.reg.Load(), opts.agent, "prompt", fmt.Errorf("%w (%s)", errDeadline, time.Since(start).Round(time.Millisecond)))
			st.caches.wait(cacheGrace)
			return
		}
	}
}

// hookMemoryLimit is the heap size at which the prompt hook collects
// garbage after all (see hookGC): above what a warm call allocates at
// 10,000 skills (peak RSS 35 MB lexical, 175 MB with the built-in model),
// a bound should a registry be larger still.
const hookMemoryLimit = 256 << 20

// hookGC turns the garbage collector off for the prompt hook, up to
// hookMemoryLimit, and returns what restores the settings. A warm call is
// short-lived and allocates a few megabytes that stay live to the end, so
// collecting would only take a core from the work, and reusing memory saves
// no page faults; the limit keeps a runaway heap bounded. (Rebuilding the
// compiled index turns it back on: see hookDocs.)
func hookGC() (restore func()) {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(hookMemoryLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(pct)
	}
}

// defaultHookDeadline is hook.deadline_ms's default, used before the config is read.
const defaultHookDeadline = 500 * time.Millisecond

// promptWork decides what to inject and returns the agent's stdout.
func promptWork(opts *hookPromptOptions, st *promptState, start time.Time) (string, error) {
	a := opts.app
	if err := hook.CheckAgent(opts.agent); err != nil {
		return "", err
	}
	data, err := readHookInput(a.in)
	if err != nil {
		return "", err
	}
	in, perr := hook.ParseInput(data, true)
	e, err := openHookEnv(hookDir(a, in.Cwd))
	if e != nil {
		st.reg.Store(e.reg)
	}
	if perr != nil {
		return "", perr
	}
	if err != nil {
		return "", err
	}
	st.deadline <- e.cfg.Hook.Deadline
	cfg := e.cfg
	s := routeSettings{TopK: cfg.Route.TopK, NoDynamic: !cfg.Route.Dynamic, Format: cfg.Route.Format, Budget: cfg.Route.Budget}
	docs, rr, err := hookRoute(a, e, st, in.Prompt, hook.ProjectWords(in.Cwd), s, start)
	if err != nil {
		return "", err
	}

	var sess *hook.Session
	if in.SessionID != "" {
		if sess, err = loadSession(e.reg, in.SessionID); err != nil {
			return "", err
		}
		sess.Agent = opts.agent
	} else {
		sess = &hook.Session{}
	}
	turn := sess.AddPrompt(in.Prompt)
	var fresh []int
	var already []string
	for _, d := range rr.res.Emitted {
		if sess.Injected(docs[d].ID) != nil {
			already = append(already, docs[d].ID)
		} else {
			fresh = append(fresh, d)
		}
	}
	rendered := renderDocs(docs, fresh, s)
	text := hook.InjectionText(rendered.Text, already)
	now := a.now()
	if !cfg.Hook.Shadow {
		for _, d := range rendered.Included {
			doc := docs[d]
			sess.Injections = append(sess.Injections, hook.Injection{
				Skill: doc.ID, Path: doc.Path, Turn: turn, Prompt: sess.Prompts[turn],
				At: now.UTC().Format(time.RFC3339), Words: hook.RelevantWords(doc.ID, doc.Triggers),
			})
		}
	}
	if sess.ID != "" {
		if err := savePromptSession(e.reg, sess, now); err != nil {
			return "", err
		}
	}
	dec := decisionRecord(opts.agent, in, cfg, docs, rr, rendered.Included, already, now)
	dec.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if line, err := json.Marshal(dec); err == nil {
		if err := e.reg.AppendLocal(decisionLogName, line, decisionMaxBytes); err != nil {
			return "", err
		}
	}
	if cfg.Hook.Shadow {
		return "", nil
	}
	return hook.Render(opts.agent, cfg.Hook.Output, text)
}

// hookRoute routes a prompt for the hook: through a warm `megagit serve`
// when one answers within half the time left, else here. Here, an ONNX
// model routes lexically: starting its session costs more than a prompt
// may wait (BENCHMARKS.md, "ONNX models"), so only a server uses it.
func hookRoute(a *app, e *env, st *promptState, prompt, project string, s routeSettings, start time.Time) ([]ranker.Doc, routeResult, error) {
	left := e.cfg.Hook.Deadline - time.Since(start)
	docs, rr, err := served(e, prompt, project, s, left/2)
	if err == nil {
		return docs, rr, nil
	}
	if !errors.Is(err, errNotServed) {
		hookNote(a, e, fmt.Errorf("%w; routed in-process", err))
	}
	if usesONNX(e.cfg, e.reg.Root()) {
		hookNote(a, e, errors.New("the ONNX model is used only through `megagit serve`, and none answered: routed lexically"))
		lex := *e.cfg
		lex.Model = config.Model{ID: "none"}
		e = &env{reg: e.reg, cfg: &lex}
	}
	prewarmModel(e.cfg)
	rt, err := hookRouter(e, st.caches)
	if err != nil {
		return nil, routeResult{}, err
	}
	return rt.docs, rt.routeWithProject(prompt, project, s), nil
}

// hookNote records in hook.log how a prompt was routed when that was not
// the configured way; the hook's output is unaffected.
func hookNote(a *app, e *env, err error) {
	line := fmt.Sprintf("%s prompt: note: %s", a.now().UTC().Format(time.RFC3339), err)
	_ = e.reg.AppendLocal(hookLogName, []byte(line), hookLogMaxBytes)
}

// savePromptSession is saveSession without waiting for the disk: the
// session memory is per-machine state (a crash loses at most a repeated
// skill body or the verdicts of one prompt), and an fsync on every prompt
// costs the hook milliseconds on a busy disk.
func savePromptSession(reg *registry.Registry, s *hook.Session, now time.Time) error {
	s.Updated = now.UTC().Format(time.RFC3339)
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	if err := reg.WriteLocalCache(sessionFile(s.ID), data); err != nil {
		return err
	}
	// Housekeeping, at most once a day: sessions idle for 30 days go.
	_, _ = reg.PruneLocal(sessionDir, sessionMaxAge, time.Now())
	return nil
}

// sessionMaxAge is how long an idle session's memory is kept.
const sessionMaxAge = 30 * 24 * time.Hour

// prewarmModel starts loading the configured static model (the tokenizer
// and, for the built-in model, its table) on another core while hookRouter
// reads the compiled index: both load once per process, so semanticFor
// then waits for this load instead of starting its own.
func prewarmModel(cfg *config.Config) {
	load := func(f func()) {
		go func() {
			// A panic must not crash the hook (it always exits 0): the
			// worker then meets the failed load and logs it.
			defer func() { _ = recover() }()
			f()
		}()
	}
	switch {
	case cfg.Model.Dir != "":
		load(func() { _, _ = embedcache.DefaultTokenizer() })
	case cfg.Model.ID == embedcache.BuiltinID:
		load(func() { _, _ = embedcache.Builtin() })
	}
}

// projectFiltered keeps, from the ranking with the project words, only
// the emitted skills the prompt alone matches (relevance > 0); if none is
// left the prompt's own ranking stands.
func projectFiltered(plain, with routeResult) routeResult {
	matched := make([]bool, len(plain.res.Ranked)) // by doc
	for _, b := range plain.res.Ranked {
		if b.Relevance > 0 && !b.Archived() {
			matched[b.Doc] = true
		}
	}
	var keep []int
	for _, d := range with.res.Emitted {
		if matched[d] {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return plain
	}
	with.res.Emitted, with.res.K = keep, len(keep)
	return with
}

// renderDocs renders the given docs in the configured format and budget.
func renderDocs(docs []ranker.Doc, ids []int, s routeSettings) ranker.Rendered {
	if len(ids) == 0 {
		return ranker.Rendered{}
	}
	if s.Format == "compose" {
		return ranker.RenderCompose(docs, ids, s.Budget)
	}
	return ranker.RenderCatalog(docs, ids, s.Budget)
}

// decisionRecord is the decision-log line of one prompt.
func decisionRecord(agent string, in hook.Input, cfg *config.Config, docs []ranker.Doc, rr routeResult, injected []int, already []string, now time.Time) hook.Decision {
	d := hook.Decision{
		Time: now.UTC().Format(time.RFC3339Nano), Session: in.SessionID, Agent: agent,
		PromptSHA: hook.PromptHash(in.Prompt), Terms: topTerms(in.Prompt, 8),
		K: len(injected) + len(already), Reason: rr.res.Reason,
		ZTop1: round4(rr.res.Decision.ZTop1), ZEnt: round4(rr.res.Decision.ZEnt),
		Shadow: cfg.Hook.Shadow, Skills: []hook.DecisionSkill{}, Candidates: rr.candidates, Served: rr.served,
	}
	if cfg.Hook.LogPrompts {
		d.Prompt = in.Prompt
	}
	score := make([]float64, len(docs)) // by doc
	for _, b := range rr.res.Ranked {
		score[b.Doc] = b.Final
		if b.Archived() {
			continue
		}
		if len(d.Scores) < 20 {
			d.Scores = append(d.Scores, round4(b.Final))
		}
	}
	for _, i := range injected {
		d.Skills = append(d.Skills, hook.DecisionSkill{Name: docs[i].ID, Score: round4(score[i]), New: true})
	}
	for _, name := range already {
		for i, doc := range docs {
			if doc.ID == name {
				d.Skills = append(d.Skills, hook.DecisionSkill{Name: name, Score: round4(score[i])})
			}
		}
	}
	return d
}

// topTerms are the prompt's first distinct index terms (stemmed, no stop
// words): enough to recognise a decision without storing the prompt.
func topTerms(prompt string, n int) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range ranker.Tokenize(prompt) {
		if !seen[t] && len(out) < n {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
