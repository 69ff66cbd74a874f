package eval

import (
	"fmt"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/dense"
)

// FitBench is one benchmark a gate is fitted on: its name (its samples'
// Catalog), the benchmark, and its semantic channel (nil: lexical).
type FitBench struct {
	Name  string
	Bench *Bench
	Dense *dense.Channel
}

// FitOptions are how `megagit eval --fit` routes and fits: Options but
// Dense (each benchmark has its own), the fit's settings, the gate file
// BelowFile, named Below in messages, that decides for catalogs smaller
// than the fitted gate's ("": none), and the file the gate is written to,
// which the fitted config names.
type FitOptions struct {
	Options
	Fit              ranker.GateFit
	Below, BelowFile string
	File             string
}

// Fitted is a gate fitted on benchmarks: how many queries it was fitted on
// and left out, and each benchmark's queries and figures with the
// config's gate and with the fitted one.
type Fitted struct {
	Gate             *ranker.Gate
	Samples, Skipped int
	Benches          []FittedBench
}

// FittedBench is one benchmark's figures before and after a fit.
type FittedBench struct {
	Queries       int
	Before, After System
}

// FitGate routes every query of the benchmarks, fits the abstention gate
// to their samples (GateSamples), nests it over o.Below when given, and
// routes them again with it.
func FitGate(benches []FitBench, o FitOptions) (*Fitted, error) {
	var samples []ranker.GateSample
	rows := make([][]Row, len(benches))
	skipped := 0
	for i, fb := range benches {
		ro := o.Options
		ro.Dense = fb.Dense
		rows[i] = Run(fb.Bench, ro)
		s, skip := GateSamples(rows[i])
		for j := range s {
			s[j].Catalog = fb.Name
		}
		samples, skipped = append(samples, s...), skipped+skip
	}
	g, err := ranker.FitGate(samples, o.Fit)
	if err != nil {
		return nil, fmt.Errorf("--fit: %w", err)
	}
	if o.Below != "" {
		if g, err = nestBelow(g, o.BelowFile); err != nil {
			return nil, fmt.Errorf("--below %s: %w", o.Below, err)
		}
	}
	fitted := *o.Config
	fitted.DynamicK.Fitted, fitted.DynamicK.Gate = g, o.File
	out := &Fitted{Gate: g, Samples: len(samples), Skipped: skipped}
	for i, fb := range benches {
		ro := o.Options
		ro.Config, ro.Dense = &fitted, fb.Dense
		out.Benches = append(out.Benches, FittedBench{Queries: len(rows[i]),
			Before: Summarize("megagit", rows[i]), After: Summarize("megagit", Run(fb.Bench, ro))})
	}
	return out, nil
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
