// Command replay measures what routing learns from use. For every skill
// with two or more prompts in a benchmark's queries, the first half of its
// prompts play past sessions (the prompt, the skill injected and used, a
// HELPFUL verdict whose context is the prompt) and the rest are asked
// afterwards; it prints the coverage of the asked prompts before and after
// the history, and after the same history judged HARMFUL; and how often a
// prompt that needs no skill is left alone in each case.
//
// Two runs play the history as implicit outcomes instead of verdicts
// (each past session followed by a passing command, or by a failing one):
// only the skills' trajectory weights move, as lifecycle.Apply moves them.
//
// A last run plays silence: the first half of the prompts that need no
// skill are routed -rounds times each as past sessions in which the
// injected skills went unused (the silence penalty's streak), and the
// other half are asked afterwards with the asked prompts.
//
//	go run ./cmd/replay -bench $BENCH/realskills-dev
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/lab/internal/benchload"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
)

func main() {
	bench := flag.String("bench", "", "benchmark folder (skills/ and queries.jsonl)")
	queries := flag.String("queries", "", "queries file (default DIR/queries.jsonl)")
	verbose := flag.Bool("v", false, "print every asked prompt")
	rounds := flag.Int("rounds", 3, "times each silent past session is played")
	flag.Parse()
	if *bench == "" {
		flag.Usage()
		os.Exit(2)
	}
	b := benchload.MustLoad(*bench, *queries)
	// Prompts by their single gold skill, in file order.
	by := map[string][]eval.Query{}
	for _, q := range b.Queries {
		if len(q.Gold) == 1 {
			by[q.Gold[0]] = append(by[q.Gold[0]], q)
		}
	}
	var skills []string
	for s, qs := range by {
		if len(qs) >= 2 {
			skills = append(skills, s)
		}
	}
	sort.Strings(skills)
	var history, asked, nulls []eval.Query
	for _, q := range b.Queries {
		if len(q.Gold) == 0 {
			nulls = append(nulls, q)
		}
	}
	for _, s := range skills {
		qs := by[s]
		h := len(qs) / 2
		history = append(history, qs[:h]...)
		asked = append(asked, qs[h:]...)
	}
	cfg, _, err := config.Load("", nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d skills with 2+ prompts: %d history prompts, %d asked, and %d that need no skill\n", len(skills), len(history), len(asked), len(nulls))
	defer silence(b, cfg, asked, nulls, *rounds)
	for _, run := range []struct {
		name    string
		verdict string
	}{{"before", ""}, {"after HELPFUL", "HELPFUL"}, {"after HARMFUL", "HARMFUL"},
		{"after success", "success"}, {"after failure", "failure"}} {
		docs := append([]ranker.Doc(nil), b.Docs...)
		at := map[string]int{}
		for i, d := range docs {
			at[d.ID] = i
		}
		ev := map[string]lifecycle.Evidence{}
		for _, q := range history {
			if run.verdict == "" {
				break
			}
			d := &docs[at[q.Gold[0]]]
			if run.verdict == "success" || run.verdict == "failure" {
				e, ok := ev[d.ID]
				if !ok {
					e = lifecycle.ColdStart()
				}
				outcome := 1.0
				if run.verdict == "failure" {
					outcome = -1
				}
				e = lifecycle.Apply(e, lifecycle.Event{Implicit: true, Outcome: outcome})
				ev[d.ID] = e
				d.Weight = e.WeightMultiplier()
				continue
			}
			if run.verdict == "HELPFUL" {
				d.HelpfulContexts = append(append([]string(nil), d.HelpfulContexts...), q.Query)
				d.HelpfulCount++
			} else {
				d.HarmfulContexts = append(append([]string(nil), d.HarmfulContexts...), q.Query)
				d.HarmfulCount++
			}
		}
		ab := &eval.Bench{Dir: b.Dir, QueryFile: b.QueryFile, Docs: docs, Queries: append(append([]eval.Query(nil), asked...), nulls...)}
		ch := dense.ForBench(cfg, docs, func(string) {})
		o := eval.Options{Config: cfg, Dense: ch,
			Settings: route.Settings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget},
			Router:   workspace.NewRouter}
		rows := eval.Run(ab, o)
		s := eval.Summarize(run.name, rows)
		fmt.Printf("%-14s asked: coverage %.3f R@1 %.3f R@5 %.3f; no skill needed: left alone %.3f\n", run.name, s.InDistCoverage, s.R1, s.R5, s.NullCoverage)
		if *verbose {
			for _, r := range rows {
				fmt.Printf("  %.0f %-30s %v | %s\n", r.Coverage, r.Gold[0], r.Emitted, r.Query)
			}
		}
	}
}

// silence routes the first half of nulls rounds times as sessions that
// used nothing injected, sets each skill's silence multiplier from its
// streak, then asks the asked prompts and the other half of nulls.
func silence(b *eval.Bench, cfg *config.Config, asked, nulls []eval.Query, rounds int) {
	h := len(nulls) / 2
	played, kept := nulls[:h], nulls[h:]
	settings := route.Settings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget}
	run := func(name string, docs []ranker.Doc) {
		ab := &eval.Bench{Dir: b.Dir, QueryFile: b.QueryFile, Docs: docs, Queries: append(append([]eval.Query(nil), asked...), kept...)}
		o := eval.Options{Config: cfg, Dense: dense.ForBench(cfg, docs, func(string) {}), Settings: settings, Router: workspace.NewRouter}
		s := eval.Summarize(name, eval.Run(ab, o))
		fmt.Printf("%-14s asked: coverage %.3f R@1 %.3f R@5 %.3f; the other half of no skill needed: left alone %.3f\n", name, s.InDistCoverage, s.R1, s.R5, s.NullCoverage)
	}
	run("before silence", b.Docs)
	streak := map[string]int{}
	pb := &eval.Bench{Dir: b.Dir, QueryFile: b.QueryFile, Docs: b.Docs, Queries: played}
	o := eval.Options{Config: cfg, Dense: dense.ForBench(cfg, b.Docs, func(string) {}), Settings: settings, Router: workspace.NewRouter}
	for _, r := range eval.Run(pb, o) {
		for _, id := range r.Emitted {
			streak[id] += rounds
		}
	}
	docs := append([]ranker.Doc(nil), b.Docs...)
	n := 0
	for i := range docs {
		if k := streak[docs[i].ID]; k > 0 {
			docs[i].Silence = lifecycle.SilenceMultiplier(k)
			if docs[i].Silence < 1 {
				n++
			}
		}
	}
	fmt.Printf("silence: %d prompts played %d times each; %d skills penalised\n", len(played), rounds, n)
	run("after silence", docs)
}
