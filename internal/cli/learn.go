package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/workspace"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func newLearnCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "learn", Short: "Learn from the agents' past sessions which prompts each skill served"}
	cmd.Example = examples(
		"megagit learn history --dry-run", "what the agents' past sessions would teach",
		"megagit learn share", "the learnt prompts that would be shared",
		"megagit learn forget --all", "forget every learnt prompt",
	)
	cmd.AddCommand(newLearnHistoryCmd(a, nil), newLearnShareCmd(a, nil), newLearnForgetCmd(a, nil))
	return cmd
}

type learnHistoryOptions struct {
	app    *app
	agents []string
	since  string
	dryRun bool
	json   bool
}

// newLearnHistoryCmd parses `megagit learn history` into options and
// hands them to runF, or to learnHistoryRun when runF is nil.
func newLearnHistoryCmd(a *app, runF func(*learnHistoryOptions) error) *cobra.Command {
	opts := &learnHistoryOptions{app: a}
	cmd := &cobra.Command{
		Use:   "history [--agent A]... [--since WHEN] [--dry-run] [--json]",
		Short: "Read the agents' past sessions and learn the prompts each skill served",
		Long: `learn history reads the sessions Claude Code, Codex and Gemini CLI keep on
this machine (~/.claude/projects, ~/.codex/sessions, Gemini CLI's chats) and
finds each prompt of yours the agent answered with a skill megagit routes:
the model calling its skill tool or reading the skill's SKILL.md, or your
own /NAME command with its arguments. Each such prompt becomes a learnt
context of the skill: later prompts in words like it find the skill, at
half the weight of an explicit HELPFUL verdict's context (blend.learnt_w),
fading with the evidence half-life. It is never a verdict: no status moves.
A use followed in the same turn by a correction or a failing command
teaches nothing.

The prompts stay on this machine, in .megagit/local/learnt.jsonl of the
registry that owns each skill (the user registry for your own folders'
skills): never committed, never pushed by sync, unless you share them
(megagit learn share shows what would be shared). Secrets are redacted
and each prompt is cut to 4 KB, as for every context. megagit learn forget
removes them.

Running it again learns nothing twice; sessions read before and unchanged
since are skipped (.megagit/local/history.json), so a killed run resumes.`,
		Example: examples(
			"megagit learn history --dry-run", "what would be learnt, per skill",
			"megagit learn history", "learn from every agent's sessions here",
			"megagit learn history --agent claude --since 30d", "Claude Code's sessions of the last 30 days",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, ag := range opts.agents {
				if err := checkAgentFlag(ag); err != nil {
					return err
				}
			}
			if _, err := parseSince(opts.since, time.Now()); err != nil {
				return err
			}
			return orRun(runF, learnHistoryRun)(opts)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.agents, "agent", nil, "only this agent's sessions: claude, codex or gemini (repeatable; default: all three)")
	f.StringVar(&opts.since, "since", "", "only sessions changed since `WHEN`: a date (2026-11-01), a time (RFC 3339) or an age (30d, 2w, 12h)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what would be learnt, per skill, and write nothing")
	f.BoolVar(&opts.json, "json", false, "print JSON: sessions, read, skipped, uses, spoiled, unknown, learnt (per skill), dry_run")
	return cmd
}

func learnHistoryRun(opts *learnHistoryOptions) error {
	a := opts.app
	e, err := openOrUser(a)
	if err != nil {
		return err
	}
	since, _ := parseSince(opts.since, a.now())
	var bar func(int)
	res, err := e.LearnHistory(workspace.HistoryOptions{Agents: opts.agents, Since: since, DryRun: opts.dryRun,
		Progress: func(done, total int) {
			if bar == nil {
				bar = learnProgress(a.errOut, total)
			}
			bar(done)
		},
		Warn: func(err error) { a.say(fmt.Sprintf("megagit: warning: %s", shownLines(err.Error()))) }})
	a.warnProblems(res.Problems)
	if err != nil {
		return err
	}
	total := 0
	for _, l := range res.Learnt {
		total += l.New
	}
	would := map[bool]string{true: "would be ", false: ""}[opts.dryRun]
	a.say(fmt.Sprintf("megagit: %d session(s) read (%d unchanged since the last import), %d use(s) of a skill found: %d prompt(s) %slearnt for %d skill(s), %d spoiled by a correction or a failing command, %d of a skill megagit does not route",
		res.Read, res.Skipped, res.Uses, total, would, len(res.Learnt), res.Spoiled, res.Unknown))
	if opts.json {
		return printJSON(a.out, map[string]any{"sessions": res.Sessions, "read": res.Read, "skipped": res.Skipped, "uses": res.Uses, "spoiled": res.Spoiled,
			"unknown": res.Unknown, "learnt": res.Learnt, "dry_run": opts.dryRun})
	}
	if len(res.Learnt) == 0 {
		return nil
	}
	rows := [][]string{}
	for _, l := range res.Learnt {
		var ags []string
		for ag, n := range l.Agents {
			ags = append(ags, fmt.Sprintf("%s %d", ag, n))
		}
		slices.Sort(ags)
		rows = append(rows, []string{l.Skill, strconv.Itoa(l.New), strings.Join(ags, ", ")})
	}
	return printTable(a.out, []string{"SKILL", "NEW PROMPTS", "FROM"}, rows)
}

// learnProgress draws a bar over the sessions on a terminal, and nothing
// otherwise.
func learnProgress(w io.Writer, n int) func(int) {
	if !isTTY(w) || n < 50 {
		return func(int) {}
	}
	bar := progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("sessions"),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
	return func(i int) { _ = bar.Set(i) }
}

// openOrUser is the registry around the working directory, else, outside
// every registry, the user registry when it exists (useUserRegistry).
func openOrUser(a *app) (*workspace.Workspace, error) {
	e, err := a.open(nil)
	if errors.Is(err, local.ErrNotRegistry) && useUserRegistry(a, "using") {
		return a.open(nil)
	}
	return e, err
}

// useUserRegistry points a at the user registry when no -C was given and
// it exists, saying so ("megagit: no registry here: VERB your user
// registry, DIR"); false when there is none.
func useUserRegistry(a *app, verb string) bool {
	if a.dir != "" {
		return false
	}
	dir, err := workspace.UserRegistryPath()
	if err != nil || !workspace.UserRegistryExists(dir) {
		return false
	}
	a.say(fmt.Sprintf("megagit: no registry here: %s your user registry, %s", verb, workspace.Describe(dir)))
	a.dir = dir
	return true
}

type learnForgetOptions struct {
	app    *app
	skills []string
	all    bool
	json   bool
}

func newLearnForgetCmd(a *app, runF func(*learnForgetOptions) error) *cobra.Command {
	opts := &learnForgetOptions{app: a}
	cmd := &cobra.Command{
		Use:   "forget SKILL... | --all",
		Short: "Forget the prompts learnt from history: of these skills, or --all",
		Long: `learn forget removes the prompts learnt from history from this machine's
store: of the skills named, or --all (and which sessions were read, so the
next learn history reads them again). Prompts you shared (megagit learn
share) are in the registry's history: megagit revert COMMIT takes them back.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.skills = args
			if opts.all == (len(args) > 0) {
				return usageError{errors.New("name the skills whose learnt prompts to forget, or --all")}
			}
			return orRun(runF, learnForgetRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.all, "all", false, "forget every learnt prompt (and which sessions were read)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: forgotten")
	return cmd
}

func learnForgetRun(opts *learnForgetOptions) error {
	a := opts.app
	e, err := openOrUser(a)
	if err != nil {
		return err
	}
	n, err := e.ForgetLearnt(opts.skills)
	if err != nil {
		return err
	}
	if opts.all {
		if err := e.ForgetSessionsRead(); err != nil {
			return err
		}
	}
	a.say(fmt.Sprintf("megagit: %d learnt prompt(s) forgotten", n))
	if opts.json {
		return printJSON(a.out, map[string]any{"forgotten": n})
	}
	return nil
}

type learnShareOptions struct {
	app    *app
	skills []string
	yes    bool
	json   bool
}

// newLearnShareCmd parses `megagit learn share` into options and hands
// them to runF, or to learnShareRun when runF is nil.
func newLearnShareCmd(a *app, runF func(*learnShareOptions) error) *cobra.Command {
	opts := &learnShareOptions{app: a}
	cmd := &cobra.Command{
		Use:   "share [SKILL...] [--yes] [--json]",
		Short: "Show the learnt prompts that would be shared; --yes commits them",
		Long: `learn share shows, per skill, the prompts learnt from the agents' history
(megagit learn history) that would be shared with everyone who syncs this
registry, and with --yes commits them to the skills' ledgers, one commit
that megagit sync pushes. Your teammates' megagit then routes them like
their own learnt prompts: evidence of use, never a verdict.

Only this registry's own skills are shared: the prompts of skills in an
agent's own folder, a plugin or another registry stay on this machine.
Read what is listed before you pass --yes: the prompts are your own words,
with secrets redacted. megagit revert COMMIT takes a share back.`,
		Example: examples(
			"megagit learn share", "what would be shared",
			"megagit learn share flaky-tests --yes", "share one skill's prompts",
		),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.skills = args
			return orRun(runF, learnShareRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.yes, "yes", false, "commit the prompts listed (without it nothing is written)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: share (skill, prompt, agent, session, time), already, kept, commit")
	return cmd
}

func learnShareRun(opts *learnShareOptions) error {
	a := opts.app
	e, err := openOrUser(a)
	if err != nil {
		return err
	}
	plan, err := e.PlanShare(opts.skills)
	if err != nil {
		return err
	}
	kept := make([]string, 0, len(plan.Kept))
	for name := range plan.Kept {
		kept = append(kept, name)
	}
	sort.Strings(kept)
	for _, name := range kept {
		a.say(fmt.Sprintf("megagit: not shared: %s: %s", shown(name), shown(plan.Kept[name])))
	}
	commit := ""
	if opts.yes && len(plan.Uses) > 0 {
		added, hash, err := e.Share(plan)
		if err != nil {
			return err
		}
		if len(added) > 0 {
			commit = hash.String()
		}
	}
	skills := map[string]bool{}
	for _, u := range plan.Uses {
		skills[u.Skill] = true
	}
	switch {
	case len(plan.Uses) == 0:
		a.say(fmt.Sprintf("megagit: nothing to share (%d prompt(s) shared before)", plan.Already))
	case commit != "":
		a.say(fmt.Sprintf("megagit: shared %d prompt(s) of %d skill(s) in commit %s; `megagit sync` pushes it, `megagit revert %.12s` takes it back", len(plan.Uses), len(skills), commit[:12], commit))
	default:
		a.say(fmt.Sprintf("megagit: would share %d prompt(s) of %d skill(s), committed to their ledgers for everyone who syncs this registry; nothing is written without --yes", len(plan.Uses), len(skills)))
	}
	if opts.json {
		type useJSON struct {
			Skill   string `json:"skill"`
			Prompt  string `json:"prompt"`
			Agent   string `json:"agent"`
			Session string `json:"session"`
			Time    string `json:"time"`
		}
		out := []useJSON{}
		for _, u := range plan.Uses {
			out = append(out, useJSON{u.Skill, u.Prompt, u.Agent, u.Session, u.At.UTC().Format(time.RFC3339)})
		}
		return printJSON(a.out, map[string]any{"share": out, "already": plan.Already, "kept": plan.Kept, "commit": commit})
	}
	if len(plan.Uses) == 0 {
		return nil
	}
	rows := [][]string{}
	for _, u := range plan.Uses {
		rows = append(rows, []string{u.Skill, u.Prompt, u.Agent, u.At.UTC().Format("2006-01-02")})
	}
	return printTable(a.out, []string{"SKILL", "PROMPT", "FROM", "USED"}, rows)
}
