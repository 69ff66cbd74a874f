package registry

import (
	"testing"

	"github.com/megagit/megagit/registry/gitstore"
)

// Commits written before outcomes had trailer blocks of their own carry an
// implicit outcome as a verdict block with Megagit-Source: implicit and
// Megagit-Outcome: the log reads them as outcomes too.
func TestOldImplicitVerdictBlocksReadAsOutcomes(t *testing.T) {
	c := &gitstore.Commit{Message: "verdicts: 2 for session s1\n\n" +
		"Megagit-Verdict: HELPFUL\nMegagit-Skill: a\nMegagit-Id: 01J0000000000000000000000A\nMegagit-Session: s1\n\n" +
		"Megagit-Verdict: HELPFUL\nMegagit-Skill: b\nMegagit-Id: 01J0000000000000000000000B\nMegagit-Session: s1\n" +
		"Megagit-Source: implicit\nMegagit-Outcome: +0.10\nMegagit-Reason: implicit none: no signal\n"}
	got := parseTrailers(c)
	if len(got) != 2 || got[0].Kind != "verdict" || got[0].Verdict != "HELPFUL" ||
		got[1].Kind != "outcome" || got[1].Verdict != "" || got[1].Outcome == nil || *got[1].Outcome != 0.1 || got[1].Skill != "b" {
		t.Fatalf("parsed %+v", got)
	}
}
