package ranker

import (
	"math"
	"testing"
	"time"
)

func TestCountBonus(t *testing.T) {
	tests := []struct {
		h, m int
		want float64
	}{
		{0, 0, 0},
		{1, 0, (2.0/3 - 0.5) * 0.1},
		{10, 0, 11.0/12 - 0.5},
		{0, 10, 1.0/12 - 0.5},
		{5, 5, 0},
		{8, 0, (9.0/10 - 0.5) * 0.8},
		{1000, 0, 1001.0/1002 - 0.5},
	}
	for _, tt := range tests {
		got := CountBonus(tt.h, tt.m)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("CountBonus(%d, %d) = %v, want %v", tt.h, tt.m, got, tt.want)
		}
		if got < -0.5 || got > 0.5 {
			t.Errorf("CountBonus(%d, %d) = %v out of [-0.5, 0.5]", tt.h, tt.m, got)
		}
	}
}

func TestBlendTerms(t *testing.T) {
	b := DefaultBlend()
	tests := []struct {
		name string
		in   Breakdown
		want Breakdown // only the checked fields
	}{
		{"cold start is exactly relevance",
			Breakdown{Relevance: 0.4371, Weight: 1, Status: StatusActive},
			Breakdown{Final: 0.4371, StatusMult: 1}},
		{"count term",
			Breakdown{Relevance: 0.5, Helpful: 10, Weight: 1, Status: StatusActive},
			Breakdown{CountRaw: 11.0/12 - 0.5, Count: 0.1 * (11.0/12 - 0.5), Final: 0.5 + 0.1*(11.0/12-0.5), StatusMult: 1}},
		{"context term with harm asymmetry",
			Breakdown{Relevance: 0.5, HelpCtx: 0.8, HarmCtx: 0.2, Weight: 1, Status: StatusActive},
			Breakdown{Context: 0.15 * (0.8 - 1.5*0.2), Final: 0.5 + 0.15*(0.8-0.3), StatusMult: 1}},
		{"related term",
			Breakdown{Relevance: 0.5, RelatedHelp: 0.7, RelatedHarm: 0.1, Weight: 1, Status: StatusActive},
			Breakdown{Related: 0.1 * 0.6, Final: 0.5 + 0.06, StatusMult: 1}},
		{"trajectory weight",
			Breakdown{Relevance: 0.5, Weight: 1.2, Status: StatusActive},
			Breakdown{Final: 0.6, StatusMult: 1}},
		{"silence multiplies",
			Breakdown{Relevance: 0.5, Weight: 1, Silence: 0.8, Status: StatusActive},
			Breakdown{Final: 0.4, StatusMult: 1}},
		{"a half-life fades every learnt term and multiplier",
			Breakdown{Relevance: 0.5, Helpful: 10, HelpCtx: 0.8, RelatedHelp: 0.6, Weight: 1.2, Silence: 0.6, Decay: 0.5, Status: StatusActive},
			Breakdown{CountRaw: 11.0/12 - 0.5, Count: 0.05 * (11.0/12 - 0.5), Context: 0.075 * 0.8, Related: 0.05 * 0.6,
				Final: (0.5 + 0.05*(11.0/12-0.5) + 0.075*0.8 + 0.05*0.6) * 1.1 * 0.8, StatusMult: 1}},
		{"suspect halves",
			Breakdown{Relevance: 0.5, Weight: 1, Status: StatusSuspect},
			Breakdown{Final: 0.25, StatusMult: 0.5}},
		{"archived sentinel zeroes every term",
			Breakdown{Relevance: 0.9, Helpful: 10, HelpCtx: 1, RelatedHelp: 1, Weight: 1.5, Status: StatusArchived},
			Breakdown{Final: ArchivedScore, StatusMult: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			b.Apply(&got)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
			if !near(got.Final, tt.want.Final) || !near(got.Count, tt.want.Count) || !near(got.CountRaw, tt.want.CountRaw) ||
				!near(got.Context, tt.want.Context) || !near(got.Related, tt.want.Related) || got.StatusMult != tt.want.StatusMult {
				t.Errorf("Apply = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBlendColdStartBitIdentical(t *testing.T) {
	for _, rel := range []float64{0, 0.1, 1.0 / 3, 0.7777777777777} {
		bd := Breakdown{Relevance: rel, Weight: 1, Status: StatusActive}
		DefaultBlend().Apply(&bd)
		if bd.Final != rel {
			t.Errorf("cold start %v scored %v", rel, bd.Final)
		}
	}
}

func TestBlendOff(t *testing.T) {
	b := DefaultBlend()
	b.Enabled = false
	bd := Breakdown{Relevance: 0.5, Helpful: 10, HelpCtx: 1, Weight: 1.5, Status: StatusSuspect}
	b.Apply(&bd)
	if bd.Final != 0.5 || bd.Count != 0 || bd.Context != 0 {
		t.Errorf("blend off = %+v, want pure relevance", bd)
	}
}

func TestWeightedTermsBounded(t *testing.T) {
	b := DefaultBlend()
	for _, n := range [][2]int{{0, 100}, {100, 0}, {3, 7}} {
		bd := Breakdown{Helpful: n[0], Harmful: n[1], Weight: 1}
		b.Apply(&bd)
		if math.Abs(bd.Count) > 0.05 {
			t.Errorf("count term %v exceeds 0.05", bd.Count)
		}
	}
}

// TestContextsFromTheModel: the model's similarity of the prompt to a
// skill's past contexts (Options.Contexts) counts in the context term when
// it beats word overlap, helpful up, harmful down; a skill nobody judged
// stays at its relevance whatever the model says.
func TestContextsFromTheModel(t *testing.T) {
	docs := evidenceDocs()
	ix := NewIndex(docs, DefaultConfig())
	prompt := "numbers from the scanned bill"
	at := func(r Result, id string) Breakdown {
		for _, b := range r.Ranked {
			if b.ID == id {
				return b
			}
		}
		t.Fatalf("%s not ranked", id)
		return Breakdown{}
	}
	dense := make([]float64, len(docs))
	plain := ix.Rank(prompt, Options{Dense: dense})
	help := make([]float64, len(docs))
	help[1], help[0] = 0.8, 0.9 // docs[0] has no verdict: cold start
	withHelp := ix.Rank(prompt, Options{Dense: dense, Contexts: &ContextScores{Help: help, Harm: make([]float64, len(docs))}})
	p, h := at(plain, docs[1].ID), at(withHelp, docs[1].ID)
	if h.HelpCtxModel != 0.8 || h.HelpCtx != max(0.8, p.HelpCtxWords) || h.Final <= p.Final {
		t.Errorf("helpful context by the model: help %v (words %v, model %v), final %v -> %v", h.HelpCtx, h.HelpCtxWords, h.HelpCtxModel, p.Final, h.Final)
	}
	if c := at(withHelp, docs[0].ID); c.Final != c.Relevance || c.HelpCtx != 0 {
		t.Errorf("cold start moved: final %v, relevance %v, help %v", c.Final, c.Relevance, c.HelpCtx)
	}
	harm := make([]float64, len(docs))
	harm[1] = 0.8
	withHarm := ix.Rank(prompt, Options{Dense: dense, Contexts: &ContextScores{Help: make([]float64, len(docs)), Harm: harm}})
	if m := at(withHarm, docs[1].ID); m.HarmCtxModel != 0.8 || m.Final >= p.Final {
		t.Errorf("harmful context by the model: harm %v, final %v -> %v", m.HarmCtx, p.Final, m.Final)
	}
	// Verdict reasons by the model: docs[2] has one helpful and one harmful
	// reason; docs[1] has none, so the model's say about it is ignored.
	rel := make([]float64, len(docs))
	rel[2], rel[1] = 0.7, 0.9
	zero := make([]float64, len(docs))
	withRel := ix.Rank(prompt, Options{Dense: dense, Contexts: &ContextScores{Help: zero, Harm: zero, RelHelp: rel}})
	p2, r2 := at(plain, docs[2].ID), at(withRel, docs[2].ID)
	if r2.RelatedHelpModel != 0.7 || r2.RelatedHelp != max(0.7, p2.RelatedHelp) || r2.Final <= p2.Final {
		t.Errorf("helpful reason by the model: related %v (model %v), final %v -> %v", r2.RelatedHelp, r2.RelatedHelpModel, p2.Final, r2.Final)
	}
	if r1 := at(withRel, docs[1].ID); r1.RelatedHelpModel != 0 {
		t.Errorf("a skill without reasons took the model's %v", r1.RelatedHelpModel)
	}
	withRelHarm := ix.Rank(prompt, Options{Dense: dense, Contexts: &ContextScores{Help: zero, Harm: zero, RelHarm: rel}})
	if m := at(withRelHarm, docs[2].ID); m.RelatedHarmModel != 0.7 || m.Final >= p2.Final {
		t.Errorf("harmful reason by the model: final %v -> %v", p2.Final, m.Final)
	}
}

// TestEvidenceDecay: evidence keeps half its pull per half-life, counted in
// whole days from its last change; today's counts in full, and without a
// clock, a date or a half-life nothing fades.
func TestEvidenceDecay(t *testing.T) {
	b := DefaultBlend()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	day := int64(86400)
	for _, c := range []struct {
		updated int64
		now     time.Time
		want    float64
	}{
		{now.Unix() - 3600, now, 1},
		{now.Unix() - 30*day, now, 0.5},
		{now.Unix() - 90*day - 3600, now, 0.125},
		{0, now, 1},
		{now.Unix() - 30*day, time.Time{}, 1},
		{now.Unix() + day, now, 1}, // a clock behind the ledger's
	} {
		if got := b.Decay(c.updated, c.now); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Decay(%d, %v) = %v, want %v", c.updated, c.now, got, c.want)
		}
	}
	b.HalfLifeDays = 0
	if got := b.Decay(now.Unix()-300*day, now); got != 1 {
		t.Errorf("no half-life: Decay = %v, want 1", got)
	}
}

// TestOldEvidenceFades: a skill with a record of helping outranks a
// slightly more relevant neighbour while its record is fresh; four
// half-lives later relevance alone decides again.
func TestOldEvidenceFades(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	docs := []Doc{
		{ID: "image-optimizer", Description: "Compress images for the web and for print, in every format.", HelpfulCount: 10, Weight: 1.3},
		{ID: "image-resizer", Description: "Compress images for the web.", Weight: 1},
	}
	prompt := "compress the images for the web"
	first := func(updated int64) string {
		docs[0].Updated = updated
		ix := NewIndex(docs, DefaultConfig())
		res := ix.Rank(prompt, Options{NoDynamicK: true, TopK: 2, Now: now})
		return res.Ranked[0].ID
	}
	if got := first(now.Unix()); got != "image-optimizer" {
		t.Fatalf("fresh evidence: %s first, want image-optimizer", got)
	}
	if got := first(now.Unix() - 120*86400); got != "image-resizer" {
		t.Errorf("evidence four half-lives old: %s first, want image-resizer (relevance alone)", got)
	}
}

// TestLearntPrompts checks a prompt learnt from the agents' history: the
// skill it served then ranks first for words like it, through the word
// channel and the model's, below what the same prompt as an explicit
// HELPFUL verdict's context gives; it fades with its own age; and without
// any, nothing moves.
func TestLearntPrompts(t *testing.T) {
	base := []Doc{
		{ID: "pdf-tables", Description: "Extract tables from PDF files into CSV."},
		{ID: "csv-report", Description: "Summarise a CSV file into a markdown report."},
		{ID: "release-cut", Description: "Cut a release: tag, changelog, publish."},
	}
	prompt := "turn the quarterly statements into spreadsheets"
	rank := func(docs []Doc, opt Options) map[string]Breakdown {
		r := NewIndex(docs, DefaultConfig()).Rank(prompt, opt)
		out := map[string]Breakdown{}
		for _, b := range r.Ranked {
			out[b.ID] = b
		}
		if len(r.Ranked) > 0 {
			out["first"] = r.Ranked[0]
		}
		return out
	}
	with := func(f func(*Doc)) []Doc {
		docs := append([]Doc(nil), base...)
		f(&docs[0])
		return docs
	}
	plain := rank(base, Options{})
	learnt := rank(with(func(d *Doc) { d.Learnt = []string{"turn the quarterly statements pdf into spreadsheets"} }), Options{})
	helpful := rank(with(func(d *Doc) {
		d.HelpfulContexts, d.HelpfulCount = []string{"turn the quarterly statements pdf into spreadsheets"}, 1
	}), Options{})
	if l, p := learnt["pdf-tables"], plain["pdf-tables"]; l.Final <= p.Final || learnt["first"].ID != "pdf-tables" {
		t.Errorf("a learnt prompt: final %v -> %v, first %s", p.Final, l.Final, learnt["first"].ID)
	}
	// Its words join the contexts field of the word channel, as a
	// verdict's context's do, at Blend.Learnt of their weight.
	if l, p, h := learnt["pdf-tables"], plain["pdf-tables"], helpful["pdf-tables"]; l.LexicalRaw <= p.LexicalRaw || l.LexicalRaw >= h.LexicalRaw {
		t.Errorf("the word channel: %v plain, %v learnt, %v as a verdict's context", p.LexicalRaw, l.LexicalRaw, h.LexicalRaw)
	}
	if l, h := learnt["pdf-tables"], helpful["pdf-tables"]; l.Final >= h.Final {
		t.Errorf("a learnt prompt weighs %v, as much as or more than a helpful verdict's context (%v)", l.Final, h.Final)
	}
	for _, id := range []string{"csv-report", "release-cut"} {
		if learnt[id].Final != plain[id].Final {
			t.Errorf("%s moved without a learnt prompt of its own: %v -> %v", id, plain[id].Final, learnt[id].Final)
		}
	}
	// The model's similarity (no shared word) counts too, at
	// Blend.Learnt of a verdict's, and fades with the learnt prompt's age.
	docs := with(func(d *Doc) { d.Learnt, d.LearntUpdated = []string{"zzz"}, time.Now().Add(-60*24*time.Hour).Unix() })
	ctx := &ContextScores{Help: make([]float64, 3), Harm: make([]float64, 3), Learnt: []float64{0.9, 0, 0}}
	now := time.Now()
	m := rank(docs, Options{Dense: make([]float64, 3), Contexts: ctx, Now: now})["pdf-tables"]
	cfg := DefaultBlend()
	if m.LearntCtx != 0.9 || math.Abs(m.LearntDecay-0.25) > 0.01 || math.Abs(m.Learnt-cfg.Context*cfg.Learnt*0.9*m.LearntDecay) > 1e-9 {
		t.Errorf("the model's learnt similarity: ctx %v, decay %v, term %v", m.LearntCtx, m.LearntDecay, m.Learnt)
	}
}
