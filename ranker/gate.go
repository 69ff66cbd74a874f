package ranker

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The abstention gate: a logistic model over a prompt's Signals that says
// how likely it is that some skill fits. It replaces one fixed floor on the
// fused score, which cannot serve every catalog size: a prompt that needs
// no skill still meets its best match among N skills, and that best score
// rises with N. The gate sees the catalog's size and the spread of the
// prompt's scores over it, so it is calibrated across sizes.

// GateFeatures names the gate's inputs, in the order Features returns them.
var GateFeatures = []string{
	"top",         // the leader's final score
	"lexical",     // best normalised lexical score
	"dense",       // best dense score (cosine)
	"margin",      // leader minus runner-up
	"lead",        // leader minus the mean of the top ten
	"dense_sd",    // spread of the dense scores over the catalog
	"log_skills",  // ln(candidates)
	"known_share", // share of the prompt's terms some skill contains
	"log_terms",   // ln(1 + the prompt's content terms); see lengthFeature
	// The leader's standing in each channel alone: catalog growth adds
	// chance matches in each channel, rarely the same skill in both.
	"dense_z",        // (leader's dense score - mean dense) / spread
	"log_dense_rank", // ln(1 + candidates above the leader by dense score)
	"log_lex_rank",   // ln(1 + candidates above the leader by lexical score)
	// The leader's score scaled by the prompt's length; see lengthFeature.
	"top_terms", // top × ln(1 + the prompt's content terms)
}

const nGateFeatures = 13

// optionalGateFeatures may be left out of a gate file: a gate without one
// weighs it 0. The rank features came after the first gates were fitted; a
// gate reads one of the two length features (lengthFeature); and FitGate
// no longer fits unfittedGateFeatures, which gates fitted before still
// weigh.
var optionalGateFeatures = []string{"top", "known_share", "dense_z", "log_dense_rank", "log_lex_rank", "log_terms", "top_terms"}

// unfittedGateFeatures are read from a gate file but never fitted: each
// repeats what another feature carries (top is top_terms without the
// prompt's length, log_dense_rank the leader's standing by cosine that
// dense_z measures, known_share what lexical scores), and a gate fitted
// without them abstains better on prompts it was not fitted on, at every
// catalog size from 10 to 10,000 skills.
var unfittedGateFeatures = []string{"top", "known_share", "log_dense_rank"}

// lengthFeature is how a gate fitted on these samples reads the prompt's
// length, and the other length feature, which it leaves out. A long prompt
// spreads its words over more terms, so the same lexical share is a
// stronger match. With a dense channel, top_terms (the leader's score
// scaled by ln(1 + terms)): log_terms let length alone raise the
// probability, and long messages about anything at all passed. Without
// one, the lexical share is the only score, and log_terms keeps more of
// the no-skill prompts out.
func lengthFeature(samples []GateSample) (use, leave string) {
	for _, s := range samples {
		if s.Signals.Dense != 0 || s.Signals.DenseSD != 0 {
			return "top_terms", "log_terms"
		}
	}
	return "log_terms", "top_terms"
}

// Weighs reports whether g reads the named feature (its file names it).
func (g *Gate) Weighs(name string) bool {
	_, ok := g.Weights[name]
	return ok
}

// Features are s's gate inputs, in GateFeatures' order.
func (s Signals) Features() [nGateFeatures]float64 {
	known := 0.0
	if s.Terms > 0 {
		known = float64(s.Known) / float64(s.Terms)
	}
	z := 0.0
	if s.DenseSD > 0 {
		z = (s.LeadDense - s.DenseMean) / s.DenseSD
	}
	return [nGateFeatures]float64{
		s.Top, s.Lexical, s.Dense, s.Top - s.Second, s.Top - s.Mean10, s.DenseSD,
		math.Log(float64(max(s.Skills, 1))), known, math.Log1p(float64(s.Terms)),
		z, math.Log1p(float64(s.LeadDenseRank)), math.Log1p(float64(s.LeadLexRank)),
		s.Top * math.Log1p(float64(s.Terms)),
	}
}

// Gate is a fitted abstention gate: emit when the probability that a skill
// fits, 1/(1+exp(-(Bias + Σ weight·feature))), reaches Threshold.
type Gate struct {
	// Weights are per feature name (GateFeatures), in the features' raw
	// units.
	Weights   map[string]float64 `json:"weights"`
	Bias      float64            `json:"bias"`
	Threshold float64            `json:"threshold"`
	// MinSkills is the smallest catalog the gate was fitted on: it is not
	// trusted below it (the floors decide there).
	MinSkills int `json:"min_skills"`
	// Fit says how the gate was fitted (data, null share, sample counts).
	Fit string `json:"fit,omitempty"`
	// Below, when set, is the gate for catalogs smaller than MinSkills
	// (down to its own MinSkills, and so on): one set of weights serves a
	// range of catalog sizes better than all of them.
	Below *Gate `json:"below,omitempty"`

	w [nGateFeatures]float64
}

// NewGate checks g's weights (every feature named once, nothing else) and
// readies it for use.
func NewGate(g Gate) (*Gate, error) {
	for name := range g.Weights {
		if !slices.Contains(GateFeatures, name) {
			return nil, fmt.Errorf("weights: unknown feature %q (known: %s)", name, strings.Join(GateFeatures, ", "))
		}
	}
	for i, name := range GateFeatures {
		w, ok := g.Weights[name]
		if !ok && !slices.Contains(optionalGateFeatures, name) {
			return nil, fmt.Errorf("weights: feature %q missing", name)
		}
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weights: %q is not a finite number", name)
		}
		g.w[i] = w
	}
	if math.IsNaN(g.Bias) || math.IsInf(g.Bias, 0) {
		return nil, fmt.Errorf("bias: not a finite number")
	}
	if !(g.Threshold > 0 && g.Threshold < 1) {
		return nil, fmt.Errorf("threshold: %v is not a probability strictly between 0 and 1", g.Threshold)
	}
	if g.Below != nil && g.Below.MinSkills >= g.MinSkills {
		return nil, fmt.Errorf("below: min_skills %d is not smaller than the gate's own, %d", g.Below.MinSkills, g.MinSkills)
	}
	return &g, nil
}

// For is the gate that decides for a catalog of n skills: g, or the first
// gate below it whose MinSkills n reaches; nil when n is smaller than
// every one (the floors decide).
func (g *Gate) For(n int) *Gate {
	for ; g != nil; g = g.Below {
		if n >= g.MinSkills {
			return g
		}
	}
	return nil
}

// ParseGate reads a gate written by `megagit eval --fit`.
func ParseGate(data []byte) (*Gate, error) {
	var g Gate
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// Prob is g's own probability that some skill fits the prompt s describes
// (For picks the gate that decides for a catalog).
func (g *Gate) Prob(s Signals) float64 {
	x := s.Features()
	z := g.Bias
	for i, w := range g.w {
		z += w * x[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// Terms are each feature's contribution to g's log-odds for s, in
// GateFeatures' order, for `why`.
func (g *Gate) Terms(s Signals) [nGateFeatures]float64 {
	x := s.Features()
	for i, w := range g.w {
		x[i] *= w
	}
	return x
}

// admits reports whether the candidate at rank i would pass the gate as
// the leader: a backup is emitted only when it is a confident match itself.
func (g *Gate) admits(s Signals, cands []Breakdown, i int, f *pool) bool {
	return g.Prob(s.asLeader(cands, i, f)) >= g.Threshold
}

// GateSample is one benchmark prompt for fitting: its signals, and whether
// a skill fits it (its gold skill leads the ranking).
type GateSample struct {
	Signals Signals
	Fits    bool
	// Catalog names the catalog the prompt was routed against (a benchmark
	// folder): FitGate weighs every catalog alike. "" is one catalog.
	Catalog string
}

// GateFit are the fitting options.
type GateFit struct {
	// NullShare is the share of prompts that need no skill the gate is fitted
	// for: samples are weighted so that, within each catalog, nulls make up
	// this share, and every catalog weighs the same.
	NullShare float64
	// L2 is the ridge penalty on the standardised weights.
	L2 float64
}

// DefaultGateFit weights prompts that need no skill at 0.4 of the total,
// the share that gave the best coverage on the development benchmarks
// across catalog sizes, with a light ridge.
func DefaultGateFit() GateFit { return GateFit{NullShare: 0.4, L2: 1e-3} }

// FitGate fits a gate to samples by weighted logistic regression (full-batch
// gradient descent on standardised features, from zero: deterministic), with
// threshold 0.5. It needs samples of both kinds.
func FitGate(samples []GateSample, o GateFit) (*Gate, error) {
	var pos, neg int
	for _, s := range samples {
		if s.Fits {
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return nil, fmt.Errorf("fitting needs prompts with and without a fitting skill (have %d and %d)", pos, neg)
	}
	if !(o.NullShare > 0 && o.NullShare < 1) {
		return nil, fmt.Errorf("null share %v is not strictly between 0 and 1", o.NullShare)
	}
	// Each catalog weighs the same, and within each the nulls make up
	// NullShare: so the share of nulls a benchmark happens to have at one
	// catalog size does not teach the gate that size itself.
	type count struct{ pos, neg int }
	per := map[string]*count{}
	for _, s := range samples {
		c := per[s.Catalog]
		if c == nil {
			c = &count{}
			per[s.Catalog] = c
		}
		if s.Fits {
			c.pos++
		} else {
			c.neg++
		}
	}
	n := len(samples)
	x := make([][nGateFeatures]float64, n)
	y := make([]float64, n)
	wt := make([]float64, n)
	for i, s := range samples {
		x[i] = s.Signals.Features()
		c, share := per[s.Catalog], 1/float64(len(per))
		switch {
		case s.Fits && c.neg == 0:
			y[i], wt[i] = 1, share/float64(c.pos)
		case s.Fits:
			y[i], wt[i] = 1, share*(1-o.NullShare)/float64(c.pos)
		case c.pos == 0:
			wt[i] = share / float64(c.neg)
		default:
			wt[i] = share * o.NullShare / float64(c.neg)
		}
	}
	// Standardise each feature (a constant one keeps scale 1).
	var mu, sd [nGateFeatures]float64
	for j := range nGateFeatures {
		for i := range x {
			mu[j] += x[i][j]
		}
		mu[j] /= float64(n)
		for i := range x {
			d := x[i][j] - mu[j]
			sd[j] += d * d
		}
		sd[j] = math.Sqrt(sd[j] / float64(n))
		if sd[j] < 1e-12 {
			sd[j] = 1
		}
		for i := range x {
			x[i][j] = (x[i][j] - mu[j]) / sd[j]
		}
	}
	_, leave := lengthFeature(samples)
	var left [nGateFeatures]bool
	for _, name := range append([]string{leave}, unfittedGateFeatures...) {
		left[slices.Index(GateFeatures, name)] = true
	}
	var w [nGateFeatures]float64
	var b float64
	const steps, lr = 4000, 0.5
	for range steps {
		var gw [nGateFeatures]float64
		var gb float64
		for i := range x {
			z := b
			for j := range w {
				z += w[j] * x[i][j]
			}
			e := (1/(1+math.Exp(-z)) - y[i]) * wt[i]
			for j := range w {
				gw[j] += e * x[i][j]
			}
			gb += e
		}
		for j := range w {
			if !left[j] {
				w[j] -= lr * (gw[j] + o.L2*w[j])
			}
		}
		b -= lr * gb
	}
	// Back to raw feature units.
	g := Gate{Weights: map[string]float64{}, Threshold: 0.5, Bias: b, MinSkills: math.MaxInt}
	for _, s := range samples {
		g.MinSkills = min(g.MinSkills, s.Signals.Skills)
	}
	for j, name := range GateFeatures {
		if left[j] {
			continue
		}
		g.Weights[name] = w[j] / sd[j]
		g.Bias -= w[j] / sd[j] * mu[j]
	}
	g.Fit = fmt.Sprintf("%d prompts with a fitting skill, %d without, from %d catalogs weighted alike, each to a null share of %g, L2 %g",
		pos, neg, len(per), o.NullShare, o.L2)
	return NewGate(g)
}

// UnmarshalJSON reads a gate and checks it as NewGate does.
func (g *Gate) UnmarshalJSON(data []byte) error {
	type plain Gate // without these methods
	var p struct {
		plain
		Below json.RawMessage `json:"below"` // read below, to name it in errors
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if len(p.Below) > 0 && string(p.Below) != "null" {
		var below Gate
		if err := json.Unmarshal(p.Below, &below); err != nil {
			return fmt.Errorf("below: %w", err)
		}
		p.plain.Below = &below
	}
	ng, err := NewGate(Gate(p.plain))
	if err != nil {
		return err
	}
	*g = *ng
	return nil
}

// MarshalJSON writes the weights in GateFeatures' order, so a fitted gate
// reads (and diffs) the same every time; only the features it names.
func (g Gate) MarshalJSON() ([]byte, error) {
	var sb strings.Builder
	sb.WriteString(`{"weights":{`)
	first := true
	for _, name := range GateFeatures {
		w, ok := g.Weights[name]
		if !ok {
			continue
		}
		if !first {
			sb.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&sb, "%q:%s", name, jsonFloat(w))
	}
	fmt.Fprintf(&sb, `},"bias":%s,"threshold":%s,"min_skills":%d`, jsonFloat(g.Bias), jsonFloat(g.Threshold), g.MinSkills)
	if g.Fit != "" {
		f, _ := json.Marshal(g.Fit)
		fmt.Fprintf(&sb, `,"fit":%s`, f)
	}
	if g.Below != nil {
		below, err := g.Below.MarshalJSON()
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&sb, `,"below":%s`, below)
	}
	sb.WriteByte('}')
	return []byte(sb.String()), nil
}

// jsonFloat rounds to 6 significant digits: enough for a gate, stable in
// diffs.
func jsonFloat(x float64) string {
	b, _ := json.Marshal(roundSig(x, 6))
	return string(b)
}

func roundSig(x float64, d int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(d)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
