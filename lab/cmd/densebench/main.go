// Command densebench measures one semantic model on a benchmark in the
// forms of issue 39 (lab/models-39.md), routing every prompt as megagit
// eval does, with the model megagit's settings name (MEGAGIT_MODEL_ID,
// MEGAGIT_MODEL_DIR: the built-in model, a static folder or an ONNX folder):
//
//   - a: the dense channel as the product scores it, max(cos(q, name:
//     description), cos(q, name)), the description with when_to_use;
//   - bmax: also the skill's body passages (lab/internal/passages) as rows
//     of the skill, its score the max over every row;
//   - btop2: the mean of the two best of those rows (the product's score
//     counting as one row).
//
// For each form it routes the dev queries under every point of a grid
// (fusion weight, the model's cosine floor, the fused floor, K tier),
// keeps the best point (highest coverage, ties by MRR, as eval --sweep
// does), and reports that point on the dev and test queries and on the
// -also benchmarks. With -fit DIR it then fits the abstention gate on the
// dev rows at that point (as eval --fit does), writes DIR/gate-FORM.json,
// and reports every set again with the gate deciding (-gate-min lets it
// decide for catalogs smaller than the dev one too).
//
// Skills, passages and prompts are embedded once; -cache keeps the vectors
// on disk between runs.
//
//	go run ./cmd/densebench -bench $BENCH/realskills-dev -dev dev.jsonl -test test.jsonl \
//	    -also $BENCH/skills-dev,$BENCH/metatool -forms a,bmax,btop2 -w 0.3,0.5,0.7 -fit /tmp/gates
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

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
	bench := flag.String("bench", "", "benchmark folder whose queries are split dev / test")
	devQ := flag.String("dev", "", "the dev queries (tuned and fitted on)")
	testQ := flag.String("test", "", "the test queries (reported only)")
	also := flag.String("also", "", "comma-separated benchmark folders (DIR or DIR=QUERIES) reported at the dev-chosen point")
	forms := flag.String("forms", "a,bmax,btop2", "comma-separated forms: a, bmax, btop2")
	ws := flag.String("w", "", "fusion weights to try (empty: the profile's)")
	mfloors := flag.String("mfloor", "", "the model's cosine floors to try (empty: the profile's)")
	dkfloors := flag.String("dkfloor", "0", "fused floors to try (0: (1-w)·lexical floor + w·cosine floor)")
	tiers := flag.String("tier", "", "K tiers to try (empty: the profile's)")
	fit := flag.String("fit", "", "folder to write each form's gate fitted on the dev rows (empty: no gate)")
	cacheFile := flag.String("cache", "", "file keeping the vectors between runs")
	words := flag.Int("words", 48, "words per passage")
	gateMin := flag.Int("gate-min", 0, "with -fit: the smallest catalog the fitted gate decides for (0: the dev catalog's size, as eval --fit writes it)")
	label := flag.String("label", "", "the model's name in the output (default its id)")
	out := flag.String("json", "", "write every result as JSON lines to FILE")
	flag.Parse()
	if *bench == "" || *devQ == "" {
		flag.Usage()
		os.Exit(2)
	}
	cfg, _, err := config.Load("", nil)
	check(err)
	emb, prof, err := dense.Load(cfg, "")
	check(err)
	if emb == nil {
		check(fmt.Errorf("no model: set MEGAGIT_MODEL_ID or MEGAGIT_MODEL_DIR"))
	}
	if *label == "" {
		*label = emb.ID()
	}
	vc := openCache(*cacheFile, emb)
	defer vc.save()

	sets := []set{{name: "dev", b: benchload.MustLoad(*bench, *devQ)}}
	if *testQ != "" {
		sets = append(sets, set{name: "test", b: benchload.MustLoad(*bench, *testQ)})
	}
	for _, a := range splitList(*also) {
		dir, q, _ := strings.Cut(a, "=")
		sets = append(sets, set{name: filepath.Base(dir), b: benchload.MustLoad(dir, q)})
	}
	chans := map[*eval.Bench]*rowsOf{}
	needPass := strings.Contains(*forms, "bmax") || strings.Contains(*forms, "btop2")
	for _, s := range sets {
		chans[s.b] = embedDocs(vc, s.b.Docs, *words, needPass)
	}
	vc.save()
	grid := points(floats(*ws, prof.FusionW), floats(*mfloors, prof.AbsFloor), floats(*dkfloors, 0), strs(*tiers))
	rs := route.Settings{TopK: cfg.Route.TopK, Format: cfg.Route.Format, Budget: cfg.Route.Budget, NoDynamic: !cfg.Route.Dynamic}
	var results []result
	for _, form := range splitList(*forms) {
		run := func(s set, p point, gate *ranker.Gate, noGate bool) eval.System {
			c := *cfg
			c.Model.FusionW, c.Model.AbsFloor, c.DynamicK.AbsFloor, c.DynamicK.Tier = p.w, p.mfloor, p.dkfloor, p.tier
			pr := prof
			pr.FusionW, pr.AbsFloor = p.w, p.mfloor
			rp := dense.RouteProfile(pr)
			sem := &probe{vc: vc, rows: chans[s.b], form: form, prof: rp}
			dk := route.DynamicKOverride{Tier: p.tier, AbsFloor: p.dkfloor, Gate: gate, NoGate: noGate}
			rows := eval.Run(s.b, eval.Options{Config: &c, Settings: rs,
				Router: func(docs []ranker.Doc, cc *config.Config, _ *dense.Channel) *route.Router {
					r, _ := route.New(docs, workspace.RankerConfig(cc), sem, dk, nil)
					return r
				}})
			vc.save()
			lastRows = rows
			return eval.Summarize(*label, rows)
		}
		best, bestS := -1, eval.System{}
		for i, p := range grid {
			s := run(sets[0], p, nil, false)
			if best < 0 || s.Coverage > bestS.Coverage || (s.Coverage == bestS.Coverage && s.MRR > bestS.MRR) {
				best, bestS = i, s
			}
			fmt.Fprintf(os.Stderr, "%s %s %s: dev cov %.3f MRR %.3f\n", *label, form, p, s.Coverage, s.MRR)
		}
		p := grid[best]
		devRows := []eval.Row(nil)
		for _, s := range sets {
			sum := run(s, p, nil, false)
			if s.name == "dev" {
				devRows = lastRows
			}
			results = append(results, result{Model: *label, Form: form, Gate: "default", Set: s.name, Point: p.String(), Sys: sum})
		}
		if *fit == "" {
			continue
		}
		samples, skipped := eval.GateSamples(devRows)
		g, err := ranker.FitGate(samples, ranker.DefaultGateFit())
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s %s: no gate: %v\n", *label, form, err)
			continue
		}
		if *gateMin > 0 {
			g.MinSkills = *gateMin
		}
		check(os.MkdirAll(*fit, 0o755))
		gf := filepath.Join(*fit, "gate-"+form+".json")
		data, _ := json.MarshalIndent(g, "", "  ")
		check(os.WriteFile(gf, append(data, '\n'), 0o644))
		fmt.Fprintf(os.Stderr, "%s %s: gate fitted on %d dev prompts (%d left out), %s\n", *label, form, len(samples), skipped, gf)
		for _, s := range sets {
			results = append(results, result{Model: *label, Form: form, Gate: "fitted", Set: s.name, Point: p.String(), Sys: run(s, p, g, false)})
		}
	}
	printTable(results)
	if *out != "" {
		f, err := os.Create(*out)
		check(err)
		enc := json.NewEncoder(f)
		for _, r := range results {
			check(enc.Encode(r))
		}
		check(f.Close())
	}
	fmt.Printf("\nquery embedding: %s\n", vc.timing())
}

// lastRows are the rows of the last run, for the gate's samples.
var lastRows []eval.Row

type set struct {
	name string
	b    *eval.Bench
}

type result struct {
	Model string      `json:"model"`
	Form  string      `json:"form"`
	Gate  string      `json:"gate"`
	Set   string      `json:"set"`
	Point string      `json:"point"`
	Sys   eval.System `json:"summary"`
}

// point is one setting of the grid.
type point struct {
	w, mfloor, dkfloor float64
	tier               string
}

func (p point) String() string {
	t := p.tier
	if t == "" {
		t = "profile"
	}
	return fmt.Sprintf("w=%g mfloor=%g dkfloor=%g tier=%s", p.w, p.mfloor, p.dkfloor, t)
}

func points(ws, mf, dk []float64, tiers []string) []point {
	var out []point
	for _, t := range tiers {
		for _, w := range ws {
			for _, m := range mf {
				for _, d := range dk {
					out = append(out, point{w, m, d, t})
				}
			}
		}
	}
	return out
}

// rowsOf are the vectors of a benchmark's docs: name: description, name,
// and the body's passages.
type rowsOf struct {
	full, name [][]float32
	pass       [][][]float32
}

// embedDocs embeds docs' rows, their passages only when withPass.
func embedDocs(vc *vcache, docs []ranker.Doc, words int, withPass bool) *rowsOf {
	r := &rowsOf{full: make([][]float32, len(docs)), name: make([][]float32, len(docs)), pass: make([][][]float32, len(docs))}
	var texts []string
	for _, d := range docs {
		f, n := dense.DocTexts(d)
		texts = append(texts, f, n)
		if withPass {
			texts = append(texts, passages.Split(d.Body, words)...)
		}
	}
	vc.fill(texts, models.Document)
	for i, d := range docs {
		f, n := dense.DocTexts(d)
		r.full[i], r.name[i] = vc.get(f, models.Document), vc.get(n, models.Document)
		if !withPass {
			continue
		}
		for _, p := range passages.Split(d.Body, words) {
			r.pass[i] = append(r.pass[i], vc.get(p, models.Document))
		}
	}
	return r
}

// probe is a dense channel over precomputed rows.
type probe struct {
	vc   *vcache
	rows *rowsOf
	form string
	prof route.DenseProfile
}

func (p *probe) DenseProfile() route.DenseProfile { return p.prof }

func (p *probe) Scores(prompt string) ([]float64, error) {
	q, err := p.vc.query(prompt)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(p.rows.full))
	for i := range out {
		out[i] = score(p.form, q, p.rows.full[i], p.rows.name[i], p.rows.pass[i])
	}
	return out, nil
}

// score is one skill's dense score in a form: a, max(full, name); bmax,
// the max over that and every passage; btop2, the mean of the two best of
// those rows.
func score(form string, q, full, name []float32, pass [][]float32) float64 {
	base := math.Max(dot(q, full), dot(q, name))
	switch form {
	case "bmax":
		for _, pv := range pass {
			base = math.Max(base, dot(q, pv))
		}
		return base
	case "btop2":
		if len(pass) == 0 {
			return base
		}
		b1, b2 := base, math.Inf(-1)
		for _, pv := range pass {
			s := dot(q, pv)
			switch {
			case s > b1:
				b1, b2 = s, b1
			case s > b2:
				b2 = s
			}
		}
		return (b1 + b2) / 2
	default:
		return base
	}
}

func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

func printTable(results []result) {
	fmt.Println("| model | form | gate | set | point | per kind: cov (R@1, R@5) | overall cov, R@1, R@5, MRR | tokens |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		var kinds []string
		for k := range r.Sys.Kinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var parts []string
		for _, k := range kinds {
			v := r.Sys.Kinds[k]
			if v.Null {
				parts = append(parts, fmt.Sprintf("%s %.3f", k, v.Coverage))
			} else {
				parts = append(parts, fmt.Sprintf("%s %.3f (%.3f, %.3f)", k, v.Coverage, v.R1, v.R5))
			}
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %.3f, %.3f, %.3f, %.3f | %.0f |\n", r.Model, r.Form, r.Gate, r.Set, r.Point,
			strings.Join(parts, "; "), r.Sys.Coverage, r.Sys.R1, r.Sys.R5, r.Sys.MRR, r.Sys.MeanTokens)
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func floats(s string, def float64) []float64 {
	var out []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		check(err)
		out = append(out, v)
	}
	if len(out) == 0 {
		out = []float64{def}
	}
	return out
}

func strs(s string) []string {
	out := splitList(s)
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "densebench:", err)
		os.Exit(1)
	}
}

// timeSince is time.Since, a variable for the cache's test.
var timeSince = time.Since
