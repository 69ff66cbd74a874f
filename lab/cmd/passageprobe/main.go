// Command passageprobe measures what a skill's body passages add to the
// dense channel: it routes a benchmark with the built-in model scoring each
// skill by max(cos(q, name: description), cos(q, name)) as megagit does,
// or also by its best body passage, and prints per-kind figures.
//
//	go run ./cmd/passageprobe -bench $BENCH/realskills-dev -queries /tmp/dev.jsonl
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/eval"
	"github.com/megagit/megagit/lab/internal/benchload"
	"github.com/megagit/megagit/lab/internal/passages"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/dense"
	"github.com/megagit/megagit/workspace"
)

func main() {
	bench := flag.String("bench", "", "benchmark folder")
	queries := flag.String("queries", "", "queries file (default DIR/queries.jsonl)")
	words := flag.Int("words", 48, "words per passage")
	modes := flag.String("modes", "base,pass", "comma-separated: base, pass, passonly")
	gate := flag.Bool("gate", true, "use the shipped gate")
	fw := flag.Float64("w", 0, "fusion weight of the dense channel (0: the model's)")
	modelDir := flag.String("model", "", "a static model folder to embed with, routed with the built-in model's profile and gate (default: the built-in model)")
	flag.Parse()
	if *bench == "" {
		flag.Usage()
		os.Exit(2)
	}
	b := benchload.MustLoad(*bench, *queries)
	m, err := models.Builtin()
	if *modelDir != "" {
		m, err = models.LoadStatic(os.DirFS(*modelDir), ".")
	}
	if err != nil {
		panic(err)
	}
	prof, _ := models.BuiltinProfile(models.BuiltinID)
	rp := dense.RouteProfile(prof)
	if !*gate {
		rp.Gate = nil
	}
	if *fw > 0 {
		rp.FusionW = *fw
	}
	full := make([][]float32, len(b.Docs))
	name := make([][]float32, len(b.Docs))
	pass := make([][][]float32, len(b.Docs))
	npass := 0
	for i, d := range b.Docs {
		f, n := dense.DocTexts(d)
		v, _ := m.Embed([]string{f, n}, models.Document)
		full[i], name[i] = v[0], v[1]
		ps := passages.Split(d.Body, *words)
		if len(ps) > 0 {
			pass[i], _ = m.Embed(ps, models.Document)
		}
		npass += len(ps)
	}
	fmt.Fprintf(os.Stderr, "%d skills, %d passages\n", len(b.Docs), npass)
	cfg, _, _ := config.Load("", nil)
	for _, mode := range strings.Split(*modes, ",") {
		sem := &probe{m: m, full: full, name: name, pass: pass, mode: mode, prof: rp}
		o := eval.Options{Config: cfg, Settings: route.Settings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget},
			Router: func(docs []ranker.Doc, c *config.Config, _ *dense.Channel) *route.Router {
				r, _ := route.New(docs, workspace.RankerConfig(c), sem, route.DynamicKOverride{NoGate: !*gate}, nil)
				return r
			}}
		rows := eval.Run(b, o)
		s := eval.Summarize(mode, rows)
		fmt.Printf("== %s (words %d)\n", mode, *words)
		var kinds []string
		for k := range s.Kinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			v := s.Kinds[k]
			fmt.Printf("%-16s n=%3d cov %.3f R@1 %.3f R@5 %.3f K %.2f\n", k, v.N, v.Coverage, v.R1, v.R5, v.MeanK)
		}
		fmt.Printf("overall cov %.3f in %.3f null %.3f R@1 %.3f R@5 %.3f tokens %.0f\n",
			s.Coverage, s.InDistCoverage, s.NullCoverage, s.R1, s.R5, s.MeanTokens)
	}
}

// probe is a dense channel over precomputed vectors.
type probe struct {
	m          *models.StaticModel
	full, name [][]float32
	pass       [][][]float32
	mode       string
	prof       route.DenseProfile
}

func (p *probe) DenseProfile() route.DenseProfile { return p.prof }

func (p *probe) Scores(prompt string) ([]float64, error) {
	v, err := p.m.Embed([]string{prompt}, models.Query)
	if err != nil {
		return nil, err
	}
	q := v[0]
	out := make([]float64, len(p.full))
	for i := range p.full {
		base := math.Max(dot(q, p.full[i]), dot(q, p.name[i]))
		best := -1.0
		for _, pv := range p.pass[i] {
			best = math.Max(best, dot(q, pv))
		}
		switch p.mode {
		case "pass":
			out[i] = math.Max(base, best)
		case "passonly":
			out[i] = math.Max(best, 0)
		default:
			out[i] = base
		}
	}
	return out, nil
}

func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
