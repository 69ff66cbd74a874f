package eval

import (
	"testing"

	"github.com/megagit/megagit/ranker"
)

// A prompt fits when a gold skill leads its ranking; one whose gold ranks
// lower, even second, is left out of the fit.
func TestGateSamplesLabels(t *testing.T) {
	ranked := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	rows := []Row{
		{ID: "null", Gold: nil, Ranked: ranked, Signals: ranker.Signals{Top: 0.1}},
		{ID: "leads", Gold: []string{"x", "a"}, Ranked: ranked, Signals: ranker.Signals{Top: 0.4}},
		{ID: "second", Gold: []string{"b"}, Ranked: ranked},
		{ID: "lost", Gold: []string{"k"}, Ranked: ranked},
		{ID: "no ranking", Gold: []string{"a"}},
	}
	s, skipped := GateSamples(rows)
	if skipped != 3 || len(s) != 2 {
		t.Fatalf("%d samples, %d skipped; want 2 and 3", len(s), skipped)
	}
	if s[0].Fits || s[0].Signals.Top != 0.1 || !s[1].Fits || s[1].Signals.Top != 0.4 {
		t.Errorf("samples %+v", s)
	}
}
