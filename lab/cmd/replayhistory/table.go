package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/eval"
)

// tableCmd prints the tables of reports written with -json.
func tableCmd(args []string) error {
	if len(args) == 0 {
		return errors.New("table needs report files")
	}
	for _, f := range args {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var rep report
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		printTables(os.Stdout, rep)
	}
	return nil
}

// kindOrder: the kinds that need a skill first, then those that need
// none, each by name.
func kindOrder(s eval.System) []string {
	var ks []string
	for k := range s.Kinds {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := s.Kinds[ks[i]], s.Kinds[ks[j]]
		if a.Null != b.Null {
			return !a.Null
		}
		return ks[i] < ks[j]
	})
	return ks
}

func find(rep report, model, phase, w string) *result {
	for i := range rep.Runs {
		r := &rep.Runs[i]
		if r.Model == model && r.Phase == phase && r.LearntW == w {
			return r
		}
	}
	return nil
}

func printTables(w io.Writer, rep report) {
	split := rep.Split
	if split == "" {
		split = "all"
	}
	fmt.Fprintf(w, "\n### %s, %s, split %s\n\n", filepath.Base(rep.Bench), filepath.Base(rep.Queries), split)
	fmt.Fprintf(w, "%d asked prompts played as sessions (%s), %d held out that need a skill, %d that need none; `learn history` learnt %d of %d prompt-skill pairs in %.2f s.\n",
		rep.Asked, agents(rep.Sessions), rep.Held, rep.Null, rep.Import.Learnt, rep.Import.Pairs, rep.Import.Seconds)
	for _, c := range rep.EvalCross {
		if c.Same {
			fmt.Fprintf(w, "Before the import, model %s: the registry's per-kind figures are `megagit eval`'s on the same prompts.\n", c.Model)
		} else {
			fmt.Fprintf(w, "Before the import, model %s: the registry differs from `megagit eval`: %s.\n", c.Model, strings.Join(c.Differences, "; "))
		}
	}
	var models []string
	var weights []string
	for _, r := range rep.Runs {
		if r.Phase == "before" {
			models = append(models, r.Model)
		} else if len(models) > 0 && r.Model == models[0] {
			weights = append(weights, r.LearntW)
		}
	}
	for _, m := range models {
		before := find(rep, m, "before", "")
		if before == nil || len(weights) == 0 {
			continue
		}
		after := find(rep, m, "after", weights[0])
		if after == nil {
			continue
		}
		fmt.Fprintf(w, "\nModel %s, blend.learnt_w %s. Coverage and R@1 are eval's (dynamic K; for prompts that need no skill, coverage is the share left alone and the last columns the share that gets a skill):\n\n", m, orDefault(weights[0]))
		fmt.Fprintln(w, "| held-out prompts | n | coverage before | after | Δ | R@1 before | after | Δ |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
		row := func(name string, n int, cb, ca, rb, ra float64) {
			fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %+.3f | %.3f | %.3f | %+.3f |\n", name, n, cb, ca, ca-cb, rb, ra, ra-rb)
		}
		for _, k := range kindOrder(before.Held) {
			b, a := before.Held.Kinds[k], after.Held.Kinds[k]
			if b.Null {
				fmt.Fprintf(w, "| %s (needs no skill) | %d | %.3f | %.3f | %+.3f | gets a skill: %.3f | %.3f | %+.3f |\n", k, b.N, b.Coverage, a.Coverage, a.Coverage-b.Coverage, 1-b.Coverage, 1-a.Coverage, b.Coverage-a.Coverage)
				continue
			}
			row(k, b.N, b.Coverage, a.Coverage, b.R1, a.R1)
		}
		for _, k := range kindOrder(before.BySeen) {
			b, a := before.BySeen.Kinds[k], after.BySeen.Kinds[k]
			if !b.Null && strings.Contains(k, "(skill") {
				row(k, b.N, b.Coverage, a.Coverage, b.R1, a.R1)
			}
		}
		row("all that need a skill", before.Held.Counts["in_dist"], before.Held.InDistCoverage, after.Held.InDistCoverage, before.Held.R1, after.Held.R1)
		fmt.Fprintf(w, "| all that need none | %d | %.3f | %.3f | %+.3f | gets a skill: %.3f | %.3f | %+.3f |\n", before.Held.Counts["null"],
			before.Held.NullCoverage, after.Held.NullCoverage, after.Held.NullCoverage-before.Held.NullCoverage, 1-before.Held.NullCoverage, 1-after.Held.NullCoverage, before.Held.NullCoverage-after.Held.NullCoverage)
		row("asked half (its own prompts learnt)", before.Asked.Counts["in_dist"], before.Asked.InDistCoverage, after.Asked.InDistCoverage, before.Asked.R1, after.Asked.R1)
		for _, r := range []*result{before, after} {
			if r.Check != nil {
				fmt.Fprintf(w, "\n%s: `megagit route --json --no-serve` on every prompt: %d of %d emit other skills than the in-process route%s.", r.Phase, r.Check.Mismatches, r.Check.Calls, examples(r.Check.Examples))
			}
		}
		fmt.Fprintln(w)
	}
	if len(weights) > 1 {
		fmt.Fprintln(w, "\nblend.learnt_w after the import (held-out coverage / R@1 per kind):")
		fmt.Fprintln(w)
		var ks []string
		if b := find(rep, models[0], "before", ""); b != nil {
			ks = kindOrder(b.BySeen)
		}
		fmt.Fprintf(w, "| model | learnt_w | %s | all that need a skill |\n", strings.Join(ks, " | "))
		fmt.Fprintf(w, "|---|---|%s---:|\n", strings.Repeat("---:|", len(ks)))
		for _, m := range models {
			cells := func(r *result) string {
				var c []string
				for _, k := range ks {
					kd := r.BySeen.Kinds[k]
					if kd.Null {
						c = append(c, fmt.Sprintf("%.3f", kd.Coverage))
					} else {
						c = append(c, fmt.Sprintf("%.3f / %.3f", kd.Coverage, kd.R1))
					}
				}
				return strings.Join(c, " | ")
			}
			if b := find(rep, m, "before", ""); b != nil {
				fmt.Fprintf(w, "| %s | before | %s | %.3f / %.3f |\n", m, cells(b), b.Held.InDistCoverage, b.Held.R1)
			}
			for _, wt := range weights {
				if a := find(rep, m, "after", wt); a != nil {
					fmt.Fprintf(w, "| %s | %s | %s | %.3f / %.3f |\n", m, orDefault(wt), cells(a), a.Held.InDistCoverage, a.Held.R1)
				}
			}
		}
	}
	fmt.Fprintf(w, "\n%s; %s; megagit %s\n", rep.Date, rep.Machine, rep.Commit)
}

func agents(m map[string]int) string {
	var s []string
	for _, a := range []string{"claude", "codex", "gemini"} {
		if m[a] > 0 {
			s = append(s, fmt.Sprintf("%s %d", a, m[a]))
		}
	}
	return strings.Join(s, ", ")
}

func examples(ex []string) string {
	if len(ex) == 0 {
		return ""
	}
	return " (" + strings.Join(ex, "; ") + ")"
}
