package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
)

// evalFitRun fits the abstention gate to every DIR, writes it to --fit
// and prints each folder's figures with the current and the fitted gate.
func evalFitRun(opts *evalOptions, cfg *config.Config, rs route.Settings) error {
	a := opts.app
	warn := func(msg string) { a.say("megagit: warning: " + msg) }
	var benches []eval.FitBench
	for _, d := range opts.dirs {
		dir := evalPath(a, d)
		qfile := filepath.Join(dir, "queries.jsonl")
		if opts.queries != "" {
			qfile = opts.queries
			if !filepath.IsAbs(qfile) {
				qfile = filepath.Join(dir, qfile)
			}
		}
		b, err := eval.Load(dir, qfile, func(s []*registry.Skill) []ranker.Doc { return workspace.SkillDocs(s, nil) }, warn)
		if err != nil {
			return err
		}
		benches = append(benches, eval.FitBench{Name: d, Bench: b, Dense: dense.ForBench(cfg, b.Docs, a.say)})
	}
	fit := ranker.DefaultGateFit()
	fit.NullShare = opts.nullShare
	fo := eval.FitOptions{Options: eval.Options{Config: cfg, Settings: rs, Router: workspace.NewRouter}, Fit: fit, File: opts.fit}
	if opts.below != "" {
		fo.Below, fo.BelowFile = opts.below, evalPath(a, opts.below)
	}
	res, err := eval.FitGate(benches, fo)
	if err != nil {
		return err
	}
	g := res.Gate
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	if err := local.WriteFileAtomic(evalPath(a, opts.fit), append(data, '\n'), 0o644); err != nil {
		return err
	}
	a.say(fmt.Sprintf("megagit: fitted the gate on %d queries (%d left out: their gold skill does not rank first); wrote %s",
		res.Samples, res.Skipped, opts.fit))

	header := []string{"benchmark", "skills", "queries", "coverage", "in-dist", "null", "fitted coverage", "fitted in-dist", "fitted null"}
	var table [][]string
	for i, fb := range benches {
		before, after := res.Benches[i].Before, res.Benches[i].After
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
		table = append(table, []string{fb.Name, strconv.Itoa(len(fb.Bench.Docs)), strconv.Itoa(res.Benches[i].Queries),
			f(before.Coverage), f(before.InDistCoverage), f(before.NullCoverage),
			f(after.Coverage), f(after.InDistCoverage), f(after.NullCoverage)})
	}
	return printTable(a.out, header, table)
}
