package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
)

// report is one run's results, -json's shape.
type report struct {
	Bench, Queries, Split string
	Date, Machine, Commit string
	Asked, Held, Null     int
	Sessions              map[string]int // per agent
	Import                importResult
	Runs                  []result
	// EvalCross compares, per model, the registry's figures before the
	// import with `megagit eval` on the same prompts.
	EvalCross []evalCross
}

type importResult struct {
	Seconds float64
	Output  map[string]any // learn history --json
	Learnt  int            // prompts learnt (all skills)
	Pairs   int            // (asked prompt, gold skill) pairs played
}

// result is one routing of the prompts: before or after the import, with
// a model and a learnt weight ("" the default).
type result struct {
	Model, LearntW, Phase string
	Held                  eval.System // the held-out half, per kind
	BySeen                eval.System // the held-out half, kinds split by whether a gold skill learnt a prompt
	Asked                 eval.System // the asked half (its own prompts learnt)
	Check                 *check      `json:",omitempty"`
}

// check is the binary's agreement with the in-process routing.
type check struct {
	Calls, Mismatches int
	Examples          []string `json:",omitempty"`
	Seconds           float64
}

type evalCross struct {
	Model       string
	Same        bool
	Differences []string `json:",omitempty"`
}

func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	bench := fs.String("bench", "", "benchmark folder (skills/ and queries.jsonl)")
	qfile := fs.String("queries", "", "queries file (default BENCH/queries.jsonl)")
	splitName := fs.String("split", "", "only the queries of this split (dev, test; default all)")
	mg := fs.String("megagit", "", "the megagit binary (built from this checkout)")
	work := fs.String("work", "", "a new folder for the registry and the home")
	models := fs.String("models", "default,none", "models to route with: default (the config's), none (lexical) or a model id")
	weights := fs.String("learnt-w", "", "blend.learnt_w values to route with after the import (MEGA_EVAL_LEARNT_W; default: the config's)")
	codex := fs.Float64("codex", 0.2, "share of the sessions played in Codex")
	gemini := fs.Float64("gemini", 0.2, "share of the sessions played in Gemini CLI")
	doCheck := fs.Bool("check", true, "ask the binary too (megagit route --json) and compare")
	jsonOut := fs.String("json", "", "write the report as JSON to FILE")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bench == "" || *mg == "" || *work == "" {
		return errors.New("run needs -bench, -megagit and -work")
	}
	if _, err := os.Stat(*work); err == nil {
		return fmt.Errorf("%s exists: give a new folder", *work)
	}
	for _, p := range []*string{bench, mg, work} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	if *qfile == "" {
		*qfile = filepath.Join(*bench, "queries.jsonl")
	}
	qs, err := loadQueries(*qfile, *splitName)
	if err != nil {
		return err
	}
	asked, held := split(qs)
	home, reg := filepath.Join(*work, "home"), filepath.Join(*work, "__") // "__": no project words (hook.ProjectWords)
	if err := hermetic(home); err != nil {
		return err
	}
	say("building the registry of %s in %s", *bench, reg)
	if err := buildRegistry(*mg, *bench, reg); err != nil {
		return err
	}
	rep := report{Bench: *bench, Queries: *qfile, Split: *splitName, Date: time.Now().UTC().Format(time.RFC3339),
		Machine: machine(), Commit: commitOf(), Asked: len(asked), Sessions: map[string]int{}}
	for _, q := range held {
		if len(q.Gold) == 0 {
			rep.Null++
		} else {
			rep.Held++
		}
	}
	// The sessions: one per asked prompt, an hour ago, two seconds apart.
	learnt := map[string]bool{}
	base := time.Now().Add(-time.Hour)
	for i, q := range asked {
		s := session{Key: q.ID, Prompt: q.Query, Skills: q.Gold, Agent: agentOf(q.ID, *codex, *gemini),
			At: base.Add(time.Duration(2*i) * time.Second), Cwd: reg,
			SkillFile: func(n string) string { return filepath.Join(reg, "skills", n, "SKILL.md") }}
		if _, err := writeSession(home, s); err != nil {
			return err
		}
		rep.Sessions[s.Agent]++
		rep.Import.Pairs += len(q.Gold)
		for _, g := range q.Gold {
			learnt[g] = true
		}
	}
	say("%d asked prompts as sessions %v; %d held out and %d that need no skill", len(asked), rep.Sessions, rep.Held, rep.Null)
	heldFile := filepath.Join(*work, "held-out.jsonl")
	if err := writeQueries(heldFile, held); err != nil {
		return err
	}
	var ms []string
	for _, m := range strings.Split(*models, ",") {
		if m = strings.TrimSpace(m); m != "" {
			ms = append(ms, m)
		}
	}
	ws := []string{""}
	if *weights != "" {
		ws = strings.Split(*weights, ",")
	}
	all := append(append([]query(nil), held...), asked...)
	measure := func(model, w, phase string, withCheck bool) error {
		r, err := routeAll(reg, *mg, model, w, all, len(held), learnt, withCheck)
		if err != nil {
			return err
		}
		r.Phase = phase
		rep.Runs = append(rep.Runs, r)
		say("%-7s %-8s learnt_w %-4s held out: coverage %.3f R@1 %.3f, no skill needed left alone %.3f; asked: coverage %.3f%s",
			phase, model, orDefault(w), r.Held.InDistCoverage, r.Held.R1, r.Held.NullCoverage, r.Asked.InDistCoverage, checkNote(r.Check))
		return nil
	}
	for _, m := range ms {
		if err := measure(m, "", "before", *doCheck); err != nil {
			return err
		}
		diffs, err := crossEval(*mg, *bench, heldFile, m, rep.Runs[len(rep.Runs)-1].Held)
		if err != nil {
			return err
		}
		rep.EvalCross = append(rep.EvalCross, evalCross{Model: m, Same: len(diffs) == 0, Differences: diffs})
	}
	say("megagit learn history")
	t0 := time.Now()
	out, err := run(reg, *mg, "learn", "history", "--json")
	if err != nil {
		return err
	}
	rep.Import.Seconds = time.Since(t0).Seconds()
	if err := json.Unmarshal(out, &rep.Import.Output); err != nil {
		return fmt.Errorf("learn history --json: %w", err)
	}
	if l, ok := rep.Import.Output["learnt"].([]any); ok {
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				n, _ := m["new"].(float64)
				rep.Import.Learnt += int(n)
			}
		}
	}
	say("learnt %d prompt-skill pairs of %d played in %.2f s", rep.Import.Learnt, rep.Import.Pairs, rep.Import.Seconds)
	for _, m := range ms {
		for _, w := range ws {
			if err := measure(m, strings.TrimSpace(w), "after", *doCheck && w == ws[0]); err != nil {
				return err
			}
		}
	}
	printTables(os.Stdout, rep)
	if *jsonOut != "" {
		data, err := json.MarshalIndent(rep, "", " ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonOut, append(data, '\n'), 0o644)
	}
	return nil
}

func orDefault(w string) string {
	if w == "" {
		return "default"
	}
	return w
}

func checkNote(c *check) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("; megagit route: %d of %d differ", c.Mismatches, c.Calls)
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "replayhistory: "+format+"\n", args...)
}

// setting sets or unsets one environment setting megagit reads.
func setting(k, v string) {
	if v == "" {
		os.Unsetenv(k)
	} else {
		os.Setenv(k, v)
	}
}

func modelEnv(model string) string {
	if model == "default" {
		return ""
	}
	return model
}

// routeAll routes qs in the registry as `megagit route` does, scored by
// eval: qs[:nHeld] are the held-out half, the rest the asked half.
func routeAll(reg, mg, model, w string, qs []query, nHeld int, learnt map[string]bool, withCheck bool) (result, error) {
	setting("MEGAGIT_MODEL_ID", modelEnv(model))
	setting("MEGA_EVAL_LEARNT_W", w)
	defer setting("MEGAGIT_MODEL_ID", "")
	defer setting("MEGA_EVAL_LEARNT_W", "")
	r := result{Model: model, LearntW: w}
	ws, err := workspace.Open(reg, nil, func(s string) { say("warning: %s", s) })
	if err != nil {
		return r, err
	}
	rt, err := ws.Router(func([]error) {}, func(string) {}, false)
	if err != nil {
		return r, err
	}
	cfg := ws.Cfg
	rs := route.Settings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget, NoDynamic: !cfg.Route.Dynamic}
	b := &eval.Bench{Dir: reg, Docs: rt.Docs}
	for _, q := range qs {
		b.Queries = append(b.Queries, eval.Query{ID: q.ID, Query: q.Query, Gold: q.Gold, Kind: q.Kind})
	}
	rows := eval.Run(b, eval.Options{Config: cfg, Settings: rs,
		Router: func([]ranker.Doc, *config.Config, *dense.Channel) *route.Router { return rt }})
	heldRows, askedRows := rows[:nHeld], rows[nHeld:]
	r.Held = eval.Summarize("held-out", heldRows)
	r.Asked = eval.Summarize("asked", askedRows)
	seen := slices.Clone(heldRows)
	for i := range seen {
		if len(seen[i].Gold) == 0 {
			continue
		}
		tag := " (skill not learnt)"
		for _, g := range seen[i].Gold {
			if learnt[g] {
				tag = " (skill learnt)"
			}
		}
		seen[i].Kind += tag
	}
	r.BySeen = eval.Summarize("held-out by skill", seen)
	runtime.GC()
	if withCheck {
		c, err := binaryCheck(reg, mg, model, w, rows)
		if err != nil {
			return r, err
		}
		r.Check = c
	}
	return r, nil
}

// binaryCheck asks the binary to route every prompt and compares what it
// emits with rows'.
func binaryCheck(reg, mg, model, w string, rows []eval.Row) (*check, error) {
	setting("MEGAGIT_MODEL_ID", modelEnv(model))
	setting("MEGA_EVAL_LEARNT_W", w)
	c := &check{}
	t0 := time.Now()
	for _, r := range rows {
		out, err := run(reg, mg, "route", "--json", "--no-serve", r.Query)
		if err != nil {
			return nil, err
		}
		var got struct {
			Skills []struct {
				Name string `json:"name"`
			} `json:"skills"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			return nil, fmt.Errorf("megagit route --json %q: %w", r.Query, err)
		}
		names := []string{}
		for _, s := range got.Skills {
			names = append(names, s.Name)
		}
		c.Calls++
		if !slices.Equal(names, r.Emitted) {
			c.Mismatches++
			if len(c.Examples) < 5 {
				c.Examples = append(c.Examples, fmt.Sprintf("%s: route %v, in process %v", r.ID, names, r.Emitted))
			}
		}
	}
	c.Seconds = time.Since(t0).Seconds()
	return c, nil
}

// crossEval runs `megagit eval` on the held-out prompts of the benchmark
// folder and lists where its per-kind figures differ from the registry's.
func crossEval(mg, bench, heldFile, model string, reg eval.System) ([]string, error) {
	setting("MEGAGIT_MODEL_ID", modelEnv(model))
	defer setting("MEGAGIT_MODEL_ID", "")
	out, err := run(bench, mg, "eval", bench, "--queries", heldFile, "--json")
	if err != nil {
		return nil, err
	}
	var ev eval.Report
	if err := json.Unmarshal(out, &ev); err != nil {
		return nil, err
	}
	var diffs []string
	for k, a := range reg.Kinds {
		b := ev.Kinds[k]
		if a.N != b.N || a.Coverage != b.Coverage || a.R1 != b.R1 {
			diffs = append(diffs, fmt.Sprintf("%s: registry coverage %.3f R@1 %.3f, eval coverage %.3f R@1 %.3f (n %d/%d)", k, a.Coverage, a.R1, b.Coverage, b.R1, a.N, b.N))
		}
	}
	slices.Sort(diffs)
	return diffs, nil
}

func writeQueries(file string, qs []query) error {
	var b strings.Builder
	for _, q := range qs {
		line, err := json.Marshal(q)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

func machine() string {
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(load))
	return fmt.Sprintf("%s, %d cores %s/%s, %s, load %s", host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), strings.Join(f[:min(3, len(f))], " "))
}

// commitOf is the commit of the working directory's checkout, which the
// binary is built from (run from lab/).
func commitOf() string {
	out, err := run(".", "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := run(".", "git", "status", "--porcelain", "--", ".."); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += " (modified)"
	}
	return c
}
