package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/route/dense"
)

// evalSweepRun embeds the benchmark once and re-ranks it per grid setting.
func evalSweepRun(opts *evalOptions, b *eval.Bench, o eval.Options) error {
	a := opts.app
	start := time.Now()
	sem, err := sweepSemantic(a, o.Config, b, opts.grid)
	if err != nil {
		return err
	}
	embedded := time.Since(start)
	o.Dense = sem
	out := eval.Sweep(b, o, opts.grid)
	total := time.Since(start)
	fmt.Fprintf(a.errOut, "megagit: swept %s of %d queries on %d skills with %s in %s (embedding the skills %s, first setting %s%s)\n",
		sweepPlural(len(out.Rows), "setting"), len(b.Queries), len(b.Docs), out.Model, total.Round(time.Millisecond),
		embedded.Round(time.Millisecond), out.First.Round(time.Millisecond), sweepPerSetting(total-embedded-out.First, len(out.Rows)-1))
	if opts.json {
		err = printJSON(a.out, out)
	} else {
		header, rows := out.Table()
		err = printTable(a.out, header, rows)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.errOut, "megagit: best: %s (%s)\n", out.BestSetting(), out.Criterion)
	fmt.Fprintf(a.errOut, "megagit: keep it: add %s to .megagit/config.yaml\n", sweepQuoteJoin(out.Keep))
	return nil
}

// sweepPerSetting is ", then D per setting" for the n settings after the first.
func sweepPerSetting(d time.Duration, n int) string {
	if n <= 0 {
		return ""
	}
	return ", then " + (d / time.Duration(n)).Round(time.Millisecond).String() + " per setting"
}

func sweepPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// sweepSemantic is the dense channel the sweep ranks with, the benchmark's
// skills embedded once (nil: lexical routing). A grid that sweeps a model
// setting needs a model.
func sweepSemantic(a *app, cfg *config.Config, b *eval.Bench, grid []eval.Axis) (*dense.Channel, error) {
	needs := ""
	for _, ax := range grid {
		if strings.HasPrefix(ax.Key, "model.") {
			needs = ax.Key
			break
		}
	}
	if lexicalOnlyModel(cfg) {
		if needs != "" {
			return nil, usageError{fmt.Errorf("--sweep %s: the model is lexical-only (model.id %q); set MEGAGIT_MODEL_ID or MEGAGIT_MODEL_DIR, or sweep dynamic_k.abs_floor", needs, cfg.Model.ID)}
		}
		return nil, nil
	}
	sem := dense.ForBench(cfg, b.Docs, a.say)
	if sem == nil && needs != "" {
		return nil, fmt.Errorf("--sweep %s: the model could not be loaded (see the warning above)", needs)
	}
	return sem, nil
}

// lexicalOnlyModel reports whether the config asks for no semantic model.
func lexicalOnlyModel(cfg *config.Config) bool {
	switch cfg.Model.ID {
	case "", "none", "lexical":
		return cfg.Model.Dir == ""
	}
	return false
}

// sweepQuoteJoin is `"a" and "b"`.
func sweepQuoteJoin(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = strconv.Quote(p)
	}
	return strings.Join(q, " and ")
}
