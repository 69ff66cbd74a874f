package eval

import (
	"testing"

	"github.com/megagit/megagit/ranker"
)

func TestGateSamplesLabels(t *testing.T) {
	ten := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "gold-11th"}
	rows := []Row{
		{ID: "null", Gold: nil, Ranked: ten, Signals: ranker.Signals{Top: 0.1}},
		{ID: "found", Gold: []string{"x", "c"}, Ranked: ten, Signals: ranker.Signals{Top: 0.4}},
		{ID: "lost", Gold: []string{"gold-11th"}, Ranked: ten},
	}
	s, skipped := GateSamples(rows)
	if skipped != 1 || len(s) != 2 {
		t.Fatalf("%d samples, %d skipped; want 2 and 1", len(s), skipped)
	}
	if s[0].Fits || s[0].Signals.Top != 0.1 || !s[1].Fits || s[1].Signals.Top != 0.4 {
		t.Errorf("samples %+v", s)
	}
}
