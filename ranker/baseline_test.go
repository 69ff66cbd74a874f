package ranker

import (
	"math"
	"testing"
)

func toyBaselineDocs() []Doc {
	return []Doc{
		{ID: "gamma", Description: "Email CSV reports weekly", Body: "# Gamma\nzebra"},
		{ID: "alpha", Description: "Parse CSV files and CSV rows"},
		{ID: "beta", Description: "Send email"},
	}
}

// TestBaselineToy pins Baseline's formula on a corpus small enough to
// compute by hand (avgdl 5; the expected scores come from a direct Python
// transcription of the formula, not from this code).
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
		t.Errorf("dynamic emit = %v %s, want the default dynamic K's %d (%s)", em, d.Reason, want.K, want.Reason)
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
