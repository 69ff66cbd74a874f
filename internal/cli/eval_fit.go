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

// fitBench is one benchmark folder of `eval --fit`, loaded and routed.
type fitBench struct {
	dir   string
	bench *eval.Bench
	dense *dense.Channel
	rows  []eval.Row
}

// evalFitRun fits the abstention gate to every DIR, writes it to --fit
// and prints each folder's figures with the current and the fitted gate.
func evalFitRun(opts *evalOptions, cfg *config.Config, rs route.Settings) error {
	a := opts.app
	warn := func(msg string) { a.say("megagit: warning: " + msg) }
	var benches []fitBench
	var samples []ranker.GateSample
	skipped := 0
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
		fb := fitBench{dir: d, bench: b, dense: dense.ForBench(cfg, b.Docs, a.say)}
		fb.rows = eval.Run(b, eval.Options{Config: cfg, Settings: rs, Dense: fb.dense, Router: workspace.NewRouter})
		s, skip := eval.GateSamples(fb.rows)
		for i := range s {
			s[i].Catalog = d
		}
		samples, skipped = append(samples, s...), skipped+skip
		benches = append(benches, fb)
	}
	fit := ranker.DefaultGateFit()
	fit.NullShare = opts.nullShare
	g, err := ranker.FitGate(samples, fit)
	if err != nil {
		return fmt.Errorf("--fit: %w", err)
	}
	if opts.below != "" {
		if g, err = nestBelow(g, evalPath(a, opts.below)); err != nil {
			return fmt.Errorf("--below %s: %w", opts.below, err)
		}
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	if err := local.WriteFileAtomic(evalPath(a, opts.fit), append(data, '\n'), 0o644); err != nil {
		return err
	}
	a.say(fmt.Sprintf("megagit: fitted the gate on %d queries (%d left out: their gold skill does not rank first); wrote %s",
		len(samples), skipped, opts.fit))

	fitted := *cfg
	fitted.DynamicK.Fitted, fitted.DynamicK.Gate = g, opts.fit
	header := []string{"benchmark", "skills", "queries", "coverage", "in-dist", "null", "fitted coverage", "fitted in-dist", "fitted null"}
	var table [][]string
	for _, fb := range benches {
		before := eval.Summarize("megagit", fb.rows)
		after := eval.Summarize("megagit", eval.Run(fb.bench, eval.Options{Config: &fitted, Settings: rs, Dense: fb.dense, Router: workspace.NewRouter}))
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
		table = append(table, []string{fb.dir, strconv.Itoa(len(fb.bench.Docs)), strconv.Itoa(len(fb.rows)),
			f(before.Coverage), f(before.InDistCoverage), f(before.NullCoverage),
			f(after.Coverage), f(after.InDistCoverage), f(after.NullCoverage)})
	}
	return printTable(a.out, header, table)
}

// nestBelow is g with the gate in file deciding for smaller catalogs.
func nestBelow(g *ranker.Gate, file string) (*ranker.Gate, error) {
	data, err := local.ReadRegular(file, local.MaxConfig)
	if err != nil {
		return nil, err
	}
	below, err := ranker.ParseGate(data)
	if err != nil {
		return nil, err
	}
	nested := *g
	nested.Below = below
	return ranker.NewGate(nested)
}
