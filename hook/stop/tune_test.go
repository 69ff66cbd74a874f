package stop

import (
	"reflect"
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

// Only dynamic K's decisions are cases; a helpful verdict labels its rank,
// a judged-otherwise or stopped session labels unhelpful.
func TestTuneCases(t *testing.T) {
	r := registrytest.New(t)
	sess := hook.ParseSession("stopped", nil)
	sess.Stopped = true
	data, err := sess.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Local().Write(hook.SessionFile("stopped"), data); err != nil {
		t.Fatal(err)
	}
	dyn := func(session string, skills ...string) hook.Decision {
		d := hook.Decision{Time: "2025-03-01T10:00:00Z", Session: session, Reason: string(ranker.ReasonAmbiguous), Scores: []float64{1, 0.5}}
		for _, s := range skills {
			d.Skills = append(d.Skills, hook.DecisionSkill{Name: s})
		}
		return d
	}
	fixed := dyn("s1", "a")
	fixed.Reason = string(ranker.ReasonFixed)
	ledgers := map[string][]registry.Entry{
		"b": {{Skill: "b", Verdict: "HELPFUL", Source: registry.SourceExplicit, Session: "helped", At: "2025-03-01T10:00:01Z"}},
		"c": {{Skill: "c", Verdict: "HARMFUL", Source: registry.SourceExplicit, Session: "judged", At: "2025-03-01T10:00:01Z"}},
	}
	ds := []hook.Decision{fixed, dyn("helped", "a", "b"), dyn("judged", "c"), dyn("stopped", "d"), dyn("open", "e")}
	got := TuneCases(r.Local(), ds, ledgers)
	labels := make([]ranker.Label, len(got))
	for i, c := range got {
		labels[i] = c.Label
	}
	want := []ranker.Label{ranker.LabelHelpful, ranker.LabelUnhelpful, ranker.LabelUnhelpful, ranker.LabelNone}
	if !reflect.DeepEqual(labels, want) || got[0].NeedK != 2 {
		t.Fatalf("labels %v (need K %d), want %v", labels, got[0].NeedK, want)
	}
}
