package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/cobra"
)

type hookStopOptions struct {
	app        *app
	agent      string
	transcript string
	session    string
	final      bool
}

func newHookStopCmd(a *app) *cobra.Command {
	opts := &hookStopOptions{app: a}
	cmd := &cobra.Command{
		Use:   "stop --agent claude|codex|gemini [--transcript FILE]",
		Short: "Stop hook: turn the session's <skill-used/> tags and outcomes into verdicts, one commit",
		Args:  exactArgs(0, "no arguments (the event comes on stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			hookStopRun(opts)
			return nil // a hook never fails the agent
		},
	}
	cmd.Flags().StringVar(&opts.agent, "agent", hook.AgentClaude, "claude, codex or gemini")
	cmd.Flags().StringVar(&opts.transcript, "transcript", "", "read this Claude Code transcript (JSONL) instead of the event's transcript_path; settles pending outcomes")
	cmd.Flags().StringVar(&opts.session, "session", "", "session id (default: the event's, or the transcript file's name)")
	cmd.Flags().BoolVar(&opts.final, "final", false, "the session is over: settle every pending implicit outcome")
	return cmd
}

func hookStopRun(opts *hookStopOptions) {
	var reg *registry.Registry
	defer func() {
		if p := recover(); p != nil {
			hookLog(opts.app, reg, opts.agent, "stop", fmt.Errorf("panic: %v", p))
		}
	}()
	if err := stopWork(opts, &reg); err != nil {
		hookLog(opts.app, reg, opts.agent, "stop", err)
	}
}

// stopWork applies the session's verdicts. Explicit ones come only from
// <skill-used/> tags in assistant text and only for skills injected in this
// session, at most one per skill and session (the first); implicit ones are
// seed 001 outcomes, one per injection once settled. The ledger is checked
// too, so a rerun on the same transcript records nothing new.
func stopWork(opts *hookStopOptions, regOut **registry.Registry) error {
	a := opts.app
	if err := hook.CheckAgent(opts.agent); err != nil {
		return err
	}
	data, err := inject.ReadInput(a.in)
	if err != nil {
		return err
	}
	var in hook.Input
	if len(strings.TrimSpace(string(data))) > 0 || opts.transcript == "" {
		if in, err = hook.ParseInput(data, false); err != nil {
			return err
		}
	}
	if opts.transcript != "" {
		in.TranscriptPath = opts.transcript
	}
	if opts.session != "" {
		in.SessionID = opts.session
	}
	if in.SessionID == "" && in.TranscriptPath != "" {
		in.SessionID = strings.TrimSuffix(filepath.Base(in.TranscriptPath), ".jsonl")
	}
	if in.SessionID == "" {
		return fmt.Errorf("%w: no session_id", hook.ErrBadInput)
	}
	e, err := openHookEnv(inject.RegistryDir(a.dir, in.Cwd))
	if e != nil {
		*regOut = e.reg
	}
	if err != nil {
		return err
	}
	sess, err := loadSession(e.reg, in.SessionID)
	if err != nil || len(sess.Injections) == 0 {
		return err // nothing was injected: no verdict can be about this session
	}
	turns, err := sessionTurns(opts.agent, in, sess)
	if err != nil {
		return err
	}
	final := opts.final || opts.transcript != "" || in.SessionEnded()
	ledgers, err := e.reg.Ledgers()
	if err != nil {
		return err
	}
	inputs := explicitVerdicts(a, e.reg, opts.agent, sess, turns, ledgers)
	inputs = append(inputs, implicitVerdicts(sess, turns, ledgers, final)...)
	var keep []registry.VerdictInput
	for _, v := range inputs {
		if _, err := e.reg.Skill(v.Skill); err != nil {
			hookLog(a, e.reg, opts.agent, "stop", fmt.Errorf("dropped %s verdict for %s: %w", v.Verdict, v.Skill, err))
			continue
		}
		keep = append(keep, v)
	}
	if len(keep) > 0 {
		if _, _, err := e.reg.RecordVerdicts(keep, a.now()); err != nil {
			return err // session memory not saved: the next stop retries
		}
	}
	sess.Stopped = true
	return saveSession(e.reg, sess, a.now())
}

// sessionTurns reads the Claude Code transcript, or rebuilds the turns from
// the session memory and the event's final answer (Codex, Gemini CLI).
func sessionTurns(agent string, in hook.Input, sess *hook.Session) ([]hook.Turn, error) {
	if agent == hook.AgentClaude && in.TranscriptPath != "" {
		f, err := os.Open(in.TranscriptPath)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		t, err := hook.ReadClaudeTranscript(f)
		return t.Turns, err
	}
	final := in.FinalAnswer()
	return sess.Turns(final, "final:"+hook.PromptHash(final)[:16]), nil
}

// ledgerHas reports whether the ledger already holds a verdict of this
// session for skill from source.
func ledgerHas(ledgers map[string][]registry.Entry, skill, session, source string) bool {
	for _, en := range ledgers[skill] {
		if en.Session == session && en.Source == source && en.Action == "" {
			return true
		}
	}
	return false
}

func explicitVerdicts(a *app, reg *registry.Registry, agent string, sess *hook.Session, turns []hook.Turn, ledgers map[string][]registry.Entry) []registry.VerdictInput {
	var out []registry.VerdictInput
	for ti, turn := range turns {
		for _, tx := range turn.Texts {
			for _, tag := range hook.ParseTags(tx.Text) {
				key := tx.Key + "/" + strconv.Itoa(tag.Index)
				if sess.Seen(key) {
					continue
				}
				sess.Mark(key)
				inj := sess.Injected(tag.Name)
				if inj == nil {
					hookLog(a, reg, agent, "stop", fmt.Errorf("ignored tag for %s: not injected in session %s", tag.Name, sess.ID))
					continue
				}
				if at := hook.LocateTurn(turns, *inj); inj.Explicit || (at >= 0 && ti < at) ||
					ledgerHas(ledgers, tag.Name, sess.ID, registry.SourceExplicit) {
					continue
				}
				inj.Explicit = true
				out = append(out, registry.VerdictInput{
					Skill: tag.Name, Verdict: lifecycle.Verdict(tag.Verdict), Reason: tag.Reason,
					Context: inj.Prompt, Session: sess.ID,
				})
			}
		}
	}
	return out
}

func implicitVerdicts(sess *hook.Session, turns []hook.Turn, ledgers map[string][]registry.Entry, final bool) []registry.VerdictInput {
	var out []registry.VerdictInput
	for i := range sess.Injections {
		inj := &sess.Injections[i]
		if inj.Implicit || ledgerHas(ledgers, inj.Skill, sess.ID, registry.SourceImplicit) {
			inj.Implicit = true
			continue
		}
		o := hook.ImplicitOutcome(turns, hook.LocateTurn(turns, *inj), inj.Words, final)
		if !o.Settled {
			continue
		}
		inj.Implicit = true
		v := lifecycle.Neutral
		switch {
		case o.Value > 0:
			v = lifecycle.Helpful
		case o.Value < 0:
			v = lifecycle.Harmful
		}
		out = append(out, registry.VerdictInput{
			Skill: inj.Skill, Verdict: v, Reason: "implicit " + o.Signal + ": " + o.Detail,
			Context: inj.Prompt, Session: sess.ID, Implicit: true, Outcome: o.Value,
		})
	}
	return out
}
