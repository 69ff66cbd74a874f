package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/hook/inject"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
	"github.com/megagit/megagit/route/serve"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type routeOptions struct {
	app        *app
	prompt     string
	topK       int
	noDynamicK bool
	format     string
	budget     int
	json       bool
	noServe    bool
	verbose    bool
	paths      []string
	flags      flagLookup
}

// newRouteCmd parses `megagit route` into options and hands them to runF,
// or to routeRun when runF is nil (tests pass a stub).
func newRouteCmd(a *app, runF func(*routeOptions) error) *cobra.Command {
	opts := &routeOptions{app: a}
	cmd := &cobra.Command{
		Use:   "route PROMPT",
		Short: "Route a prompt: print the skills worth injecting for it, or none",
		Long: `route picks the skills worth injecting for PROMPT (or none) and prints what
would be injected.`,
		Example: examples(
			`megagit route "why does this test fail only in CI"`, "the skills that fit, or none",
			`megagit route "fix the webhook signature check" --json`, "the same, as JSON",
			`megagit route "tidy this handler" --path api/hook.go`, "for a file being worked on (paths: rules)",
			`megagit route "set up tracing" --no-dynamic-k --top-k 3`, "always the 3 best",
		),
		Args: exactArgs(1, "one PROMPT (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.prompt = args[0]
			opts.flags = cmd.Flags()
			return orRun(runF, routeRun)(opts)
		},
	}
	cmd.Flags().IntVar(&opts.topK, "top-k", 0, "cap on emitted skills (the fixed K with --no-dynamic-k)")
	cmd.Flags().BoolVar(&opts.noDynamicK, "no-dynamic-k", false, "always emit --top-k skills")
	cmd.Flags().StringVar(&opts.format, "format", "", "catalog (name, description, path) or compose (primary body, secondary gotchas)")
	cmd.Flags().IntVar(&opts.budget, "budget", 0, "token budget of the injected text")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.verbose, "verbose", false, "also say why that many skills: the branch of dynamic K or the gate that decided")
	cmd.Flags().BoolVar(&opts.noServe, "no-serve", false, "route in this process even if \"megagit serve\" runs")
	cmd.Flags().StringArrayVar(&opts.paths, "path", nil, "a `FILE` being worked on, for skills limited by paths: (repeatable; the current folder and the files the prompt names count too)")
	return cmd
}

// routeJSON is `route --json`'s stable shape.
type routeJSON struct {
	K      int               `json:"k"`
	Reason ranker.KReason    `json:"reason"`
	Skills []routedSkill     `json:"skills"`
	Tokens int               `json:"tokens"`
	Text   string            `json:"text"`
	Stats  *ranker.KDecision `json:"dynamic_k,omitempty"`
}

type routedSkill struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	Path  string  `json:"path"`
	// Dense is the skill's semantic score, max(cos(q, full), cos(q, name));
	// absent when routing was lexical only.
	Dense *float64 `json:"dense,omitempty"`
}

func routeRun(opts *routeOptions) error {
	e, err := opts.app.open(opts.flags)
	if err != nil {
		return err
	}
	topK, format, budget := e.Cfg.Route.TopK, e.Cfg.Route.Format, e.Cfg.Route.Budget
	if opts.topK > 0 {
		topK = opts.topK
	}
	if opts.format != "" {
		if opts.format != "catalog" && opts.format != "compose" {
			return usageError{fmt.Errorf("--format %q: want catalog or compose", opts.format)}
		}
		format = opts.format
	}
	if opts.budget > 0 {
		budget = opts.budget
	}
	noDynamic := opts.noDynamicK || !e.Cfg.Route.Dynamic
	// The prompt hook adds the project folder's name to the prompt
	// (Router.RouteWithProject): so does route, from the folder it runs in.
	project := ""
	if dir, err := filepath.Abs(opts.app.workDir()); err == nil {
		project = hook.ProjectWords(dir)
	}
	docs, rr, alone, err := routeOnce(opts, e, project, route.Settings{TopK: topK, NoDynamic: noDynamic, Format: format, Budget: budget,
		Where: route.WhereAt("", opts.prompt, opts.paths), Deny: e.Cfg.Deny, Force: e.Cfg.Force, Allow: e.Cfg.Audit.Allow})
	if err != nil {
		return err
	}
	score, dense := map[int]float64{}, map[int]*float64{}
	for _, b := range rr.Res.Ranked {
		score[b.Doc], dense[b.Doc] = b.Final, b.Dense
	}
	reason := rr.Res.Reason
	if len(rr.Rendered.Included) < len(rr.Res.Emitted) {
		reason += ranker.ReasonBudget // the token budget dropped some of what dynamic K chose
	}
	out := routeJSON{K: len(rr.Rendered.Included), Reason: reason, Skills: []routedSkill{},
		Tokens: rr.Rendered.Tokens, Text: rr.Rendered.Text}
	for _, d := range rr.Rendered.Included {
		s := routedSkill{Name: docs[d].ID, Score: round4(score[d]), Path: docs[d].Path}
		if v := dense[d]; v != nil {
			r := round4(*v)
			s.Dense = &r
		}
		out.Skills = append(out.Skills, s)
	}
	if opts.json {
		dec := rr.Res.Decision
		out.Stats = &dec
		return printJSON(opts.app.out, out)
	}
	names := make([]string, len(out.Skills))
	for i, s := range out.Skills {
		names[i] = s.Name
	}
	switch out.K {
	case 0:
		fmt.Fprintf(opts.app.errOut, "megagit: no skill fits this prompt: nothing to inject\n")
	case 1:
		fmt.Fprintf(opts.app.errOut, "megagit: 1 skill fits: %s (%d tokens)\n", shown(names[0]), out.Tokens)
	default:
		fmt.Fprintf(opts.app.errOut, "megagit: %d skills fit: %s (%d tokens)\n", out.K, shown(strings.Join(names, ", ")), out.Tokens)
	}
	if opts.verbose {
		fmt.Fprintf(opts.app.errOut, "megagit: why %d: %s (%s; `megagit why PROMPT SKILL` shows one skill's scores)\n", out.K, out.Reason.Explain(), out.Reason)
	}
	if alone != nil {
		was := "nothing"
		if len(alone) > 0 {
			was = strings.Join(alone, ", ")
		}
		fmt.Fprintf(opts.app.errOut, "megagit: ranked with this folder's name (%s) as the prompt hook ranks; the prompt alone picks %s\n", shown(project), shown(was))
	}
	if out.Text != "" {
		// The rendered text holds no control character but newline and
		// tab (safetext.Injected); a served answer is escaped all the same.
		fmt.Fprint(opts.app.out, shownText(strings.TrimRight(out.Text, "\n"))+"\n")
	}
	return nil
}

// routeServeTimeout bounds a route's wait for `megagit serve`, which may be
// re-reading changed skills, before routing in-process.
const routeServeTimeout = 5 * time.Second

// routeOnce routes through `megagit serve` when one answers, else here,
// with the project's words as the prompt hook does; alone is what the
// prompt alone would inject, when the project's words changed it (nil
// when they did not).
func routeOnce(opts *routeOptions, e *workspace.Workspace, project string, s route.Settings) (docs []ranker.Doc, rr route.Result, alone []string, err error) {
	if !opts.noServe {
		c := serveClient(e)
		docs, rr, err := c.Route(opts.prompt, project, s, routeServeTimeout)
		if err == nil {
			if project != "" {
				if pd, plain, err := c.Route(opts.prompt, "", s, routeServeTimeout); err == nil {
					alone = changedBy(docs, rr, pd, plain)
				}
			}
			return docs, rr, alone, nil
		}
		if !errors.Is(err, serve.ErrNotServed) {
			fmt.Fprintf(opts.app.errOut, "megagit: warning: %v; routing here\n", err)
		}
	}
	return routeMapped(func() (*route.Router, error) { return opts.app.router(e, s.Format == "compose") }, opts.prompt, project, s)
}

// changedBy is what the plain answer injects, when it is not what rr
// injects (nil when the two agree).
func changedBy(docs []ranker.Doc, rr route.Result, plainDocs []ranker.Doc, plain route.Result) []string {
	names := func(docs []ranker.Doc, r route.Result) []string {
		out := []string{}
		for _, d := range r.Rendered.Included {
			out = append(out, docs[d].ID)
		}
		return out
	}
	with, without := names(docs, rr), names(plainDocs, plain)
	if slices.Equal(with, without) {
		return nil
	}
	return without
}

// routeMapped routes a prompt through the router open builds, as the
// prompt hook does: no garbage collection in a process this short
// (inject.NoGC), and the compiled index mapped, not copied into memory
// (at thousands of skills, tens of megabytes a call would copy). megagit
// replaces the index file, never truncates it, so the mapping stays whole;
// should a fault on it happen all the same, it is an error, not a crash.
func routeMapped(open func() (*route.Router, error), prompt, project string, s route.Settings) (docs []ranker.Doc, rr route.Result, alone []string, err error) {
	defer inject.NoGC()()
	defer index.MapIndexFiles()()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("reading the compiled route index: %v; run the command again", p)
		}
	}()
	rt, err := open()
	if err != nil {
		return nil, route.Result{}, nil, err
	}
	rr = rt.RouteWithProject(prompt, project, s)
	if project != "" {
		alone = changedBy(rt.Docs, rr, rt.Docs, rt.RouteWithProject(prompt, "", s))
	}
	return rt.Docs, rr, alone, nil
}

// round4 rounds a score for output (see ranker.Round4).
func round4(x float64) float64 { return ranker.Round4(x) }
