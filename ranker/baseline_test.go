package ranker

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func toyBaselineDocs() []Doc {
	return []Doc{
		{ID: "gamma", Description: "Email CSV reports weekly", Body: "# Gamma\nzebra"},
		{ID: "alpha", Description: "Parse CSV files and CSV rows"},
		{ID: "beta", Description: "Send email"},
	}
}

// TestBaselineToy pins the README formula on a corpus small enough to
// compute by hand (avgdl 5; figures from a direct Python transcription).
func TestBaselineToy(t *testing.T) {
	docs := toyBaselineDocs()
	p := NewBaseline(docs, BaselineNameDescription)
	tests := []struct {
		query string
		ids   []string
		top   []float64
	}{
		{"csv email", []string{"gamma", "alpha", "beta"}, []float64{0.9400072584914713, 0.5809033619891115, 0.561960861054684}},
		{"EMAIL email", []string{"beta", "gamma", "alpha"}, []float64{2 * 0.561960861054684, 2 * 0.47000362924573563, 0}},
		// No match: every score 0, ties broken by id.
		{"zebra", []string{"alpha", "beta", "gamma"}, []float64{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			order, scores := p.Rank(tt.query)
			for i, want := range tt.ids {
				if got := docs[order[i]].ID; got != want {
					t.Errorf("rank %d = %s, want %s", i, got, want)
				}
				if math.Abs(scores[i]-tt.top[i]) > 1e-12 {
					t.Errorf("score %d = %v, want %v", i, scores[i], tt.top[i])
				}
			}
		})
	}
}

func TestBaselineBodyAndEmit(t *testing.T) {
	docs := toyBaselineDocs()
	order, scores := NewBaseline(docs, BaselineNameDescriptionBody).Rank("zebra")
	if docs[order[0]].ID != "gamma" || scores[0] <= 0 || scores[1] != 0 {
		t.Fatalf("body text not indexed: %v %v", order, scores)
	}
	p := NewBaseline(docs, BaselineNameDescription)
	order, scores = p.Rank("zebra")
	if em, d := p.Emit(order, scores, false); len(em) != 3 || d.Reason != "fixed" {
		t.Errorf("fixed emit = %v %s, want all 3 (fewer docs than BaselineTopK)", em, d.Reason)
	}
	want := DefaultDynamicK().Decide(scores)
	if em, d := p.Emit(order, scores, true); len(em) != want.K || d.Reason != want.Reason {
		t.Errorf("dynamic emit = %v %s, want seed 000's default K %d (%s)", em, d.Reason, want.K, want.Reason)
	}
}

func TestParseBaselineText(t *testing.T) {
	for _, s := range []string{"name+description", "name+description+body"} {
		if got, err := ParseBaselineText(s); err != nil || string(got) != s {
			t.Errorf("ParseBaselineText(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseBaselineText("body"); err == nil {
		t.Error("ParseBaselineText(body) succeeded")
	}
}

// TestBaselineReproducesREADME checks the exported baseline against the
// reference tables of both benchmark READMEs (MEGAGIT_BENCH=1;
// MEGAGIT_BENCH_FULL=1 adds metatool's queries-full.jsonl row).
func TestBaselineReproducesREADME(t *testing.T) {
	if os.Getenv("MEGAGIT_BENCH") != "1" {
		t.Skip("set MEGAGIT_BENCH=1 to check the README reference figures")
	}
	type row struct{ r1, r5, r10, mrr float64 }
	check := func(label string, s Summary, want row) {
		t.Helper()
		got := row{s.R1, s.R5, s.R10, s.MRR}
		for i, pair := range [][2]float64{{got.r1, want.r1}, {got.r5, want.r5}, {got.r10, want.r10}, {got.mrr, want.mrr}} {
			if math.Abs(pair[0]-pair[1]) > 0.0005 {
				t.Errorf("%s metric %d = %.4f, README %.3f", label, i, pair[0], pair[1])
			}
		}
	}
	meta := loadBench(t, filepath.Join(benchRoot, "metatool"), "queries.jsonl")
	ms := runPlain(meta, BaselineNameDescriptionBody, false)
	check("metatool single", Summarize(subset(ms, "s-")), row{0.350, 0.494, 0.558, 0.425})
	check("metatool multi", Summarize(subset(ms, "m-")), row{0.020, 0.111, 0.168, 0.131})
	if r := NewReport(ms); r.Null.Coverage != 0 || r.Null.MeanK != BaselineTopK {
		t.Errorf("metatool null coverage %.3f K %.2f, want 0 and %d", r.Null.Coverage, r.Null.MeanK, BaselineTopK)
	}

	if os.Getenv("MEGAGIT_BENCH_FULL") == "1" {
		full := loadBench(t, filepath.Join(benchRoot, "metatool"), "queries-full.jsonl")
		fs := runPlain(full, BaselineNameDescriptionBody, false)
		check("metatool full single", Summarize(subset(fs, "s-")), row{0.282, 0.412, 0.481, 0.351})
	}

	dev := loadBench(t, filepath.Join(benchRoot, "skills-dev"), "queries.jsonl")
	ds := runPlain(dev, BaselineNameDescription, false)
	check("skills-dev in-dist", NewReport(ds).InDist, row{0.533, 0.767, 0.811, 0.700})
	kind := map[string]string{}
	for _, q := range dev.queries {
		kind[q.ID] = q.Kind
	}
	var k1, k2 []QueryScore
	for _, s := range ds {
		switch kind[s.ID] {
		case "k1":
			k1 = append(k1, s)
		case "k2":
			k2 = append(k2, s)
		}
	}
	check("skills-dev k1", Summarize(k1), row{0.586, 0.800, 0.850, 0.676})
	check("skills-dev k2", Summarize(k2), row{0.350, 0.650, 0.675, 0.784})
}
