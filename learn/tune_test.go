package learn

import (
	"reflect"
	"testing"

	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry/ledger"
)

// Only dynamic K's decisions are cases; a helpful verdict labels its rank,
// a judged-otherwise or stopped session labels unhelpful, and whether a
// session was stopped is asked once.
func TestTuneCases(t *testing.T) {
	asked := map[string]int{}
	stopped := func(session string) bool {
		asked[session]++
		return session == "stopped"
	}
	dyn := func(session string, skills ...string) decisionlog.Entry {
		d := decisionlog.Entry{Time: "2025-03-01T10:00:00Z", Session: session, Reason: string(ranker.ReasonAmbiguous), Scores: []float64{1, 0.5}}
		for _, s := range skills {
			d.Skills = append(d.Skills, decisionlog.Skill{Name: s})
		}
		return d
	}
	fixed := dyn("s1", "a")
	fixed.Reason = string(ranker.ReasonFixed)
	ledgers := map[string][]ledger.Entry{
		"b": {{Skill: "b", Verdict: "HELPFUL", Source: ledger.SourceExplicit, Session: "helped", At: "2025-03-01T10:00:01Z"}},
		"c": {{Skill: "c", Verdict: "HARMFUL", Source: ledger.SourceExplicit, Session: "judged", At: "2025-03-01T10:00:01Z"}},
	}
	// A decision ranked by the built-in model while the ONNX model's
	// server started is not the model's: left out.
	fallback := dyn("helped", "a", "b")
	fallback.Fallback = "megagit-static-v3"
	ds := []decisionlog.Entry{fixed, dyn("helped", "a", "b"), fallback, dyn("judged", "c"), dyn("stopped", "d"), dyn("open", "e"), dyn("stopped", "f")}
	got := TuneCases(ds, ledgers, stopped)
	labels := make([]ranker.Label, len(got))
	for i, c := range got {
		labels[i] = c.Label
	}
	want := []ranker.Label{ranker.LabelHelpful, ranker.LabelUnhelpful, ranker.LabelUnhelpful, ranker.LabelNone, ranker.LabelUnhelpful}
	if !reflect.DeepEqual(labels, want) || got[0].NeedK != 2 {
		t.Fatalf("labels %v (need K %d), want %v", labels, got[0].NeedK, want)
	}
	if asked["stopped"] != 1 {
		t.Errorf("asked %d times whether session stopped was read; want once", asked["stopped"])
	}
}

// tune --gate's samples: a decision fits when its first skill helped; one
// helped only by a backup is left out, one judged otherwise is a negative.
func TestGateSamplesFromVerdicts(t *testing.T) {
	dec := func(session string, top float64, skills ...string) decisionlog.Entry {
		d := decisionlog.Entry{Time: "2025-03-01T10:00:00Z", Session: session, Signals: &ranker.Signals{Top: top}}
		for _, s := range skills {
			d.Skills = append(d.Skills, decisionlog.Skill{Name: s})
		}
		return d
	}
	helpful := func(skill, session string) ledger.Entry {
		return ledger.Entry{Skill: skill, Verdict: "HELPFUL", Source: ledger.SourceExplicit, Session: session, At: "2025-03-01T10:00:01Z"}
	}
	ledgers := map[string][]ledger.Entry{
		"a": {helpful("a", "leader")},
		"b": {helpful("b", "backup")},
		"c": {{Skill: "c", Verdict: "NEUTRAL", Source: ledger.SourceExplicit, Session: "judged", At: "2025-03-01T10:00:01Z"}},
	}
	unlogged := dec("leader", 0.9, "a")
	unlogged.Signals = nil
	fallback := dec("leader", 0.7, "a")
	fallback.Fallback = "lexical"
	ds := []decisionlog.Entry{dec("leader", 0.5, "a", "x"), dec("backup", 0.4, "x", "b"), dec("judged", 0.2, "c"), unlogged, fallback}
	got := GateSamples(ds, ledgers, func(string) bool { return false })
	if len(got) != 2 || !got[0].Fits || got[0].Signals.Top != 0.5 || got[1].Fits || got[1].Signals.Top != 0.2 {
		t.Fatalf("samples %+v; want the leader's decision fitting and the judged one not", got)
	}
}
