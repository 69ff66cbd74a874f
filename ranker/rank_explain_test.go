package ranker

import (
	"strings"
	"testing"
)

// Every reason K can have is said in words, not by its name alone.
func TestKReasonExplained(t *testing.T) {
	for _, r := range []KReason{ReasonAbsFloor, ReasonUniformNull, ReasonGate, ReasonVeryAmbiguous, ReasonAmbiguous,
		ReasonEmpty, ReasonEmptyQuery, ReasonNoMatch, ReasonFixed, ReasonLexicalDominant, GapCut(0), GapCut(3)} {
		if w := r.Explain(); w == string(r) || w == "" {
			t.Errorf("%s: explained as %q", r, w)
		}
	}
	if w := GapCut(2).Explain(); !strings.Contains(w, "after rank 3") {
		t.Errorf("gap-cut@2: %q, want the rank it cut after (3)", w)
	}
	if w := (GapCut(0) + ReasonBudget).Explain(); !strings.Contains(w, "after rank 1") || !strings.Contains(w, "route.budget") {
		t.Errorf("gap-cut@0+budget: %q, want both said", w)
	}
}
