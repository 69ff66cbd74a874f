package ranker

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// onlyTop is a gate that reads the leader's score alone: p = 0.5 at top =
// at, for any catalog of at least minSkills.
func onlyTop(at float64, minSkills int) *Gate {
	w := map[string]float64{}
	for _, f := range GateFeatures {
		w[f] = 0
	}
	w["top"] = 40
	g, err := NewGate(Gate{Weights: w, Bias: -40 * at, Threshold: 0.5, MinSkills: minSkills})
	if err != nil {
		panic(err)
	}
	return g
}

func TestNewGateRefusesBadGates(t *testing.T) {
	full := func() map[string]float64 {
		w := map[string]float64{}
		for _, f := range GateFeatures {
			w[f] = 1
		}
		return w
	}
	unknown := full()
	unknown["colour"] = 1
	missing := full()
	delete(missing, "dense_sd")
	older := full() // a gate fitted before the rank features and top_terms
	for _, f := range []string{"dense_z", "log_dense_rank", "log_lex_rank", "top_terms"} {
		delete(older, f)
	}
	if g, err := NewGate(Gate{Weights: older, Threshold: 0.5}); err != nil {
		t.Errorf("a gate without the rank features: %v", err)
	} else {
		if s := (Signals{Skills: 9, Top: 0.3, LeadDenseRank: 5, LeadLexRank: 7, DenseSD: 0.1, LeadDense: 0.5}); g.Prob(s) != g.Prob(Signals{Skills: 9, Top: 0.3, DenseSD: 0.1}) {
			t.Error("a gate without the rank features reads them")
		}
		// It decides as it was fitted: with log_terms, without top_terms.
		if got, want := g.Prob(Signals{Skills: 9, Top: 0.1, Terms: 30})-g.Prob(Signals{Skills: 9, Top: 0.1, Terms: 3}),
			// top, margin and lead are 0.1 each, log_skills ln 9; every weight 1.
			sigmoid(0.3+math.Log(9)+math.Log1p(30))-sigmoid(0.3+math.Log(9)+math.Log1p(3)); math.Abs(got-want) > 1e-12 {
			t.Errorf("an older gate: p(30 terms) - p(3 terms) = %v, want %v", got, want)
		}
		data, err := json.Marshal(g)
		if err != nil || !strings.Contains(string(data), `"log_terms":1`) || strings.Contains(string(data), "top_terms") {
			t.Errorf("an older gate writes %s (%v)", data, err)
		}
	}
	nan := full()
	nan["top"] = math.NaN()
	for _, tt := range []struct {
		name string
		g    Gate
		want string
	}{
		{"unknown feature", Gate{Weights: unknown, Threshold: 0.5}, `weights: unknown feature "colour"`},
		{"missing feature", Gate{Weights: missing, Threshold: 0.5}, `weights: feature "dense_sd" missing`},
		{"not a number", Gate{Weights: nan, Threshold: 0.5}, `weights: "top" is not a finite number`},
		{"threshold 1", Gate{Weights: full(), Threshold: 1}, "threshold: 1 is not a probability"},
	} {
		if _, err := NewGate(tt.g); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestGateJSONRoundTrip(t *testing.T) {
	g := onlyTop(0.2, 50)
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseGate(data)
	if err != nil {
		t.Fatal(err)
	}
	s := Signals{Skills: 100, Top: 0.25}
	if back.Prob(s) != g.Prob(s) || back.MinSkills != 50 || !reflect.DeepEqual(back.Weights, g.Weights) {
		t.Errorf("round trip changed the gate: %s", data)
	}
	if !strings.HasPrefix(string(data), `{"weights":{"top":40,"lexical":0,`) {
		t.Errorf("weights not in feature order: %s", data)
	}
}

func TestDecideGated(t *testing.T) {
	flat := []float64{0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30}
	peak := []float64{0.12, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01}
	c := ProfileFor(TierMedium)
	c.AbsFloor = 0.14
	c.Gate = onlyTop(0.2, 100)

	// Flat but confident: the gate says something fits, so uniform-null
	// (which the same scores trigger without a gate) does not abstain.
	if d := ProfileFor(TierMedium).Decide(flat); d.Reason != ReasonUniformNull {
		t.Fatalf("without a gate: %q", d.Reason)
	}
	d := c.DecideGated(flat, Signals{Skills: 200, Top: 0.30})
	if d.K == 0 || d.GateProb == nil || *d.GateProb < 0.5 {
		t.Errorf("confident flat match: K %d reason %q", d.K, d.Reason)
	}
	// A weak leader: the gate abstains.
	d = c.DecideGated(peak, Signals{Skills: 200, Top: 0.12})
	if d.K != 0 || d.Reason != ReasonGate {
		t.Errorf("weak leader: K %d reason %q", d.K, d.Reason)
	}
	// A catalog smaller than any the gate was fitted on: the floor decides.
	d = c.DecideGated(peak, Signals{Skills: 20, Top: 0.12})
	if d.Reason != ReasonAbsFloor || d.GateProb != nil {
		t.Errorf("small catalog: reason %q, gate %v", d.Reason, d.GateProb)
	}
}

// TestRankGateBackups: a leader that barely passes the gate emits alone;
// the tier's minimum K does not drag backups that would not pass in.
func TestRankGateBackups(t *testing.T) {
	docs := testDocs()
	prompt := "verify the stripe webhook signature of a docker file"
	ix := NewIndex(docs, DefaultConfig())
	plain := ix.Rank(prompt, Options{})
	noGate := ProfileFor(TierMedium)
	if r := ix.Rank(prompt, Options{Profile: &noGate}); len(r.Emitted) < 2 {
		t.Fatalf("without a gate only %v is emitted: the test needs backups", r.Emitted)
	}
	top := plain.Signals.Top
	if plain.Signals.Skills != 5 || top <= 0 {
		t.Fatalf("signals %+v", plain.Signals)
	}
	prof := ProfileFor(TierMedium) // k_min 3
	prof.Gate = onlyTop(top*0.9, 1)
	r := ix.Rank(prompt, Options{Profile: &prof})
	if len(r.Emitted) != 1 || docs[r.Emitted[0]].ID != "webhook-signer" {
		t.Errorf("emitted %v, want webhook-signer alone", r.Emitted)
	}
	prof.Gate = onlyTop(top*1.1, 1)
	if r := ix.Rank(prompt, Options{Profile: &prof}); len(r.Emitted) != 0 || r.Reason != ReasonGate {
		t.Errorf("a leader below the gate: emitted %v (%q)", r.Emitted, r.Reason)
	}
}

func TestFitGateSeparatesAndRepeats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var samples []GateSample
	for i := range 400 {
		fits := i%2 == 0
		top := 0.1 + 0.05*r.NormFloat64()
		if fits {
			top += 0.15
		}
		n := []int{100, 1000}[i%4/2]
		samples = append(samples, GateSample{Fits: fits, Signals: Signals{Skills: n, Top: top, Terms: 6, Known: 4}})
	}
	g, err := FitGate(samples, DefaultGateFit())
	if err != nil {
		t.Fatal(err)
	}
	if g.MinSkills != 100 {
		t.Errorf("min_skills %d, want the smallest catalog, 100", g.MinSkills)
	}
	for _, name := range []string{"top", "known_share", "log_dense_rank"} {
		if g.Weighs(name) {
			t.Errorf("the fit weighs %s, which repeats another feature", name)
		}
	}
	right := 0
	for _, s := range samples {
		if (g.Prob(s.Signals) >= g.Threshold) == s.Fits {
			right++
		}
	}
	if right < 340 {
		t.Errorf("the fitted gate is right on %d of 400 separable samples", right)
	}
	again, _ := FitGate(samples, DefaultGateFit())
	a, _ := json.Marshal(g)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("fitting twice differs:\n%s\n%s", a, b)
	}
	if _, err := FitGate(samples[:1], DefaultGateFit()); err == nil {
		t.Error("fitted on one kind of prompt only")
	}
}

func TestSignalsLeaderStanding(t *testing.T) {
	d := func(x float64) *float64 { return &x }
	// The fused leader is third by lexical score and second by dense score.
	cands := []Breakdown{
		{Final: 0.5, Lexical: 0.2, Dense: d(0.5)},
		{Final: 0.4, Lexical: 0.6, Dense: d(0.1)},
		{Final: 0.3, Lexical: 0.3, Dense: d(0.7)},
		{Final: 0.1, Lexical: 0.1, Dense: d(0.3)},
	}
	s := signals(query{}, cands)
	if s.LeadLexRank != 2 || s.LeadDenseRank != 1 {
		t.Errorf("leader's ranks lexical %d dense %d, want 2 and 1", s.LeadLexRank, s.LeadDenseRank)
	}
	if s.LeadDense != 0.5 || math.Abs(s.DenseMean-0.4) > 1e-12 {
		t.Errorf("lead dense %v, mean %v; want 0.5 and 0.4", s.LeadDense, s.DenseMean)
	}
	// As the leader, the third candidate is best by dense score and second
	// by lexical score.
	b := s.asLeader(cands, 2, nil)
	if b.LeadLexRank != 1 || b.LeadDenseRank != 0 || b.LeadDense != 0.7 {
		t.Errorf("third as leader: lexical rank %d, dense rank %d, dense %v; want 1, 0, 0.7", b.LeadLexRank, b.LeadDenseRank, b.LeadDense)
	}
	// Without a dense channel the dense standing is 0 and z is 0.
	lex := signals(query{}, []Breakdown{{Final: 0.2, Lexical: 0.2}, {Final: 0.1, Lexical: 0.9}})
	if lex.LeadDenseRank != 0 || lex.LeadLexRank != 1 || lex.Features()[9] != 0 {
		t.Errorf("lexical only: %+v", lex)
	}
}

// A benchmark may hold more nulls at one catalog size than at another;
// the gate must not learn that share as an effect of the size itself.
func TestFitGateWeighsEachCatalogAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var samples []GateSample
	for _, c := range []struct {
		name          string
		skills, nulls int
	}{{"small", 50, 320}, {"large", 2000, 80}} {
		for i := range 400 {
			fits := i >= c.nulls
			top := 0.1 + 0.05*r.NormFloat64()
			if fits {
				top += 0.1
			}
			samples = append(samples, GateSample{Fits: fits, Catalog: c.name, Signals: Signals{Skills: c.skills, Top: top, Terms: 6, Known: 4}})
		}
	}
	g, err := FitGate(samples, DefaultGateFit())
	if err != nil {
		t.Fatal(err)
	}
	for _, top := range []float64{0.1, 0.15, 0.2} {
		small := g.Prob(Signals{Skills: 50, Top: top, Terms: 6, Known: 4})
		large := g.Prob(Signals{Skills: 2000, Top: top, Terms: 6, Known: 4})
		if math.Abs(small-large) > 0.05 {
			t.Errorf("top %.2f: p %.3f at 50 skills (80%% nulls) against %.3f at 2,000 (20%% nulls): the gate learnt the share as the size", top, small, large)
		}
	}
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// With a dense channel, the prompt's length counts only through the
// leader's score: a long prompt that matches nothing is not admitted for
// being long, even when the prompts some skill fits are the long ones.
// Without one, the gate reads length as such (lengthFeature).
func TestFitGateLengthAloneAdmitsNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var dense, lexical []GateSample
	for i := range 600 {
		fits := i%2 == 0
		top, terms := 0.08+0.04*r.NormFloat64(), 2+r.IntN(6)
		if fits {
			top, terms = 0.16+0.06*r.NormFloat64(), 12+r.IntN(20)
		}
		s := Signals{Skills: 500, Top: top, Terms: terms, Known: terms}
		lexical = append(lexical, GateSample{Fits: fits, Signals: s})
		s.Dense, s.DenseSD, s.LeadDense = 0.3, 0.07, 0.3
		dense = append(dense, GateSample{Fits: fits, Signals: s})
	}
	g, err := FitGate(dense, DefaultGateFit())
	if err != nil {
		t.Fatal(err)
	}
	if g.Weighs("log_terms") || !g.Weighs("top_terms") {
		t.Errorf("with a dense channel the fit weighs %v, want top_terms and not log_terms", g.Weights)
	}
	long := Signals{Skills: 500, Top: 0.02, Terms: 40, Known: 40, Dense: 0.3, DenseSD: 0.07, LeadDense: 0.3}
	if p := g.Prob(long); p >= g.Threshold {
		t.Errorf("a 40-term prompt with top 0.02 passes the gate: p = %.3f", p)
	}
	fits := Signals{Skills: 500, Top: 0.2, Terms: 20, Known: 20, Dense: 0.3, DenseSD: 0.07, LeadDense: 0.3}
	if p := g.Prob(fits); p < g.Threshold {
		t.Errorf("a 20-term prompt with top 0.2 is refused: p = %.3f", p)
	}
	lg, err := FitGate(lexical, DefaultGateFit())
	if err != nil {
		t.Fatal(err)
	}
	if !lg.Weighs("log_terms") || lg.Weighs("top_terms") {
		t.Errorf("without a dense channel the fit weighs %v, want log_terms and not top_terms", lg.Weights)
	}
}

// A gate with a gate below it: each decides for its own range of catalog
// sizes, the floors below both.
func TestGateBelow(t *testing.T) {
	large, small := onlyTop(0.2, 150), onlyTop(0.1, 40)
	nest := *large
	nest.Below = small
	g, err := NewGate(nest)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		skills int
		want   *Gate
	}{{10000, g}, {150, g}, {149, small}, {40, small}, {39, nil}} {
		if got := g.For(tt.skills); got != tt.want {
			t.Errorf("For(%d) = %p, want %p", tt.skills, got, tt.want)
		}
	}
	peak := []float64{0.15, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01}
	c := ProfileFor(TierMedium)
	c.AbsFloor, c.Gate = 0.3, g
	// A leader of 0.15: too weak for the gate of large catalogs, a match
	// for the one of small catalogs; the floor (0.3) decides below both.
	if d := c.DecideGated(peak, Signals{Skills: 500, Top: 0.15}); d.Reason != ReasonGate {
		t.Errorf("500 skills: reason %q, want the large catalogs' gate to abstain", d.Reason)
	}
	if d := c.DecideGated(peak, Signals{Skills: 100, Top: 0.15}); d.K == 0 || d.GateProb == nil {
		t.Errorf("100 skills: K %d, reason %q: the small catalogs' gate did not decide", d.K, d.Reason)
	}
	if d := c.DecideGated(peak, Signals{Skills: 20, Top: 0.15}); d.Reason != ReasonAbsFloor || d.GateProb != nil {
		t.Errorf("20 skills: reason %q, want the floor", d.Reason)
	}
	// Written and read back whole; a gate below that is not smaller is refused.
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseGate(data)
	s := Signals{Skills: 100, Top: 0.15}
	if err != nil || back.Below == nil || back.Below.MinSkills != 40 || back.For(100).Prob(s) != g.For(100).Prob(s) {
		t.Errorf("round trip: %v\n%s", err, data)
	}
	// A broken gate below is named as such.
	broken := strings.Replace(string(data), `"below":{"weights":{"top":40,`, `"below":{"weights":{"top":"x",`, 1)
	if _, err := ParseGate([]byte(broken)); err == nil || !strings.HasPrefix(err.Error(), "below: ") {
		t.Errorf("a broken gate below: err = %v", err)
	}
	missing := strings.Replace(string(data), `"below":{"weights":{"top":40,"lexical":0,`, `"below":{"weights":{"top":40,`, 1)
	if _, err := ParseGate([]byte(missing)); err == nil || err.Error() != `below: weights: feature "lexical" missing` {
		t.Errorf("a gate below without a weight: err = %v", err)
	}
	// Rank reports, and checks backups against, the gate that decided.
	tiny := onlyTop(0.01, 1)
	nestTiny := *large
	nestTiny.Below = tiny
	prof := ProfileFor(TierMedium)
	if prof.Gate, err = NewGate(nestTiny); err != nil {
		t.Fatal(err)
	}
	if r := NewIndex(testDocs(), DefaultConfig()).Rank("verify the stripe webhook signature", Options{Profile: &prof}); r.Gate != tiny {
		t.Errorf("5 skills: the result's gate is %p, want the gate below (%p)", r.Gate, tiny)
	}
	bad := *small
	bad.Below = large
	if _, err := NewGate(bad); err == nil || !strings.Contains(err.Error(), "below: min_skills 150 is not smaller than the gate's own, 40") {
		t.Errorf("a larger gate below: err = %v", err)
	}
}

// onlyLexical is a gate that weighs the candidate's lexical score alone:
// it admits a skill whose lexical score reaches at.
func onlyLexical(at float64) *Gate {
	w := map[string]float64{}
	for _, f := range GateFeatures {
		w[f] = 0
	}
	w["lexical"] = 40
	g, err := NewGate(Gate{Weights: w, Bias: -40 * at, Threshold: 0.5, MinSkills: 1})
	if err != nil {
		panic(err)
	}
	return g
}

// TestRankSkipsAFailingBackup: a backup the gate turns down is skipped, not
// the end of the list, so a later one in K's window that passes is
// emitted; route.top_k caps what is emitted, not the window.
func TestRankSkipsAFailingBackup(t *testing.T) {
	docs := []Doc{
		{ID: "webhook-signer", Description: "Verify the stripe webhook signature.", Weight: 1},
		{ID: "docker-slim", Description: "Shrink docker images.", Weight: 1},
		{ID: "stripe-refunds", Description: "Issue stripe refunds and handle disputes.", Weight: 1},
		{ID: "pdf-tables", Description: "Extract tables from pdf files.", Weight: 1},
	}
	cfg := DefaultConfig()
	cfg.Fusion = Fusion{Mode: FusionLinear, DenseWeight: 0.5}
	ix := NewIndex(docs, cfg)
	prompt := "stripe webhook signature"
	dense := []float64{0.9, 0.8, 0.1, 0.05}
	prof := ProfileFor(TierMedium) // K at least 3: room for two backups
	prof.Gate = onlyLexical(0.1)
	r := ix.Rank(prompt, Options{Dense: dense, Profile: &prof})
	var order []string
	for _, b := range r.Ranked {
		order = append(order, b.ID)
	}
	if !slices.Equal(order[:3], []string{"webhook-signer", "docker-slim", "stripe-refunds"}) || r.Ranked[1].Lexical != 0 || r.Ranked[2].Lexical < 0.1 {
		t.Fatalf("ranking %v (lexical %v, %v): the case needs a backup with no lexical match before one with", order, r.Ranked[1].Lexical, r.Ranked[2].Lexical)
	}
	if r.Decision.K < 3 {
		t.Fatalf("K %d (%s): the case needs a window of three", r.Decision.K, r.Reason)
	}
	var got []string
	for _, d := range r.Emitted {
		got = append(got, docs[d].ID)
	}
	if !slices.Equal(got, []string{"webhook-signer", "stripe-refunds"}) {
		t.Errorf("emitted %v, want webhook-signer and stripe-refunds (docker-slim skipped)", got)
	}
	r = ix.Rank(prompt, Options{Dense: dense, Profile: &prof, TopK: 1})
	if len(r.Emitted) != 1 || docs[r.Emitted[0]].ID != "webhook-signer" {
		t.Errorf("TopK 1: emitted %v, want webhook-signer alone", r.Emitted)
	}
}
