package lifecycle

import (
	"math"
	"strings"
	"testing"
	"time"
)

// run applies a verdict pattern written as letters: H helpful, M harmful
// (M for "mistake": H is taken), N neutral, U unarchive.
func run(t *testing.T, start Evidence, pattern string) []Evidence {
	t.Helper()
	e := start
	var states []Evidence
	for i, c := range pattern {
		ev := Event{At: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)}
		switch c {
		case 'H':
			ev.Verdict = Helpful
		case 'M':
			ev.Verdict = Harmful
		case 'N':
			ev.Verdict = Neutral
		case 'U':
			ev.Unarchive = true
		default:
			t.Fatalf("bad pattern letter %q", c)
		}
		e = Apply(e, ev)
		states = append(states, e)
	}
	return states
}

func TestLifecycleTransitions(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		status  Status
		streak  int
		help    int
		harm    int
	}{
		{"fresh skill stays active", "", Active, 0, 0, 0},
		{"three harmful archive a fresh skill", "MMM", Archived, 3, 0, 3},
		{"two harmful stay active under cold-start guard", "MM", Active, 2, 0, 2},
		{"helpful resets the streak", "MMHM", Active, 1, 1, 3},
		{"neutral keeps the streak: H,M,M,N,M archives", "HMMNM", Archived, 3, 1, 3},
		{"neutral changes nothing", "NNNN", Active, 0, 0, 0},
		{"ratio above 0.3 with total 5 is suspect", "HHHMM", Suspect, 2, 3, 2},
		{"ratio exactly 0.3 is not suspect", "HHHHHMHMHM", Active, 1, 7, 3},
		{"ratio just above 0.3 is suspect", "HHHHHMHMHMM", Suspect, 2, 7, 4},
		{"four harmful is suspect even at low ratio", strings.Repeat("H", 20) + "MHMHMHM", Suspect, 1, 23, 4},
		{"harmful count 3 at low ratio stays active", strings.Repeat("H", 20) + "MHMHM", Active, 1, 22, 3},
		{"recovery needs harmful <= 1", "HHMMH" + strings.Repeat("H", 20), Suspect, 0, 23, 2},
		{"archived never leaves by helpful", "MMM" + strings.Repeat("H", 30), Archived, 0, 30, 3},
		{"unarchive is the way out", "MMMU", Active, 0, 0, 3},
		{"unarchived skill archives again after three more harmful", "MMMUMMM", Archived, 3, 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			states := run(t, ColdStart(), tt.pattern)
			got := ColdStart()
			if len(states) > 0 {
				got = states[len(states)-1]
			}
			if got.Status != tt.status || got.ConsecutiveHarmful != tt.streak || got.HelpfulCount != tt.help || got.HarmfulCount != tt.harm {
				t.Errorf("got status=%s streak=%d help=%d harm=%d, want %s %d %d %d",
					got.Status, got.ConsecutiveHarmful, got.HelpfulCount, got.HarmfulCount, tt.status, tt.streak, tt.help, tt.harm)
			}
		})
	}
}

func TestHMMNMArchivesOnLastM(t *testing.T) {
	states := run(t, ColdStart(), "HMMNM")
	for i, s := range states[:4] {
		if s.Status == Archived {
			t.Fatalf("archived too early at step %d", i)
		}
	}
	if states[4].Status != Archived {
		t.Fatalf("final M did not archive: %+v", states[4])
	}
}

func TestFiftyHarmfulInterleavedNeverArchives(t *testing.T) {
	// 50 HARMFUL with a HELPFUL after every second one: the streak never reaches 3.
	var b strings.Builder
	for i := 0; i < 25; i++ {
		b.WriteString("MMH")
	}
	states := run(t, ColdStart(), b.String())
	for i, s := range states {
		if s.Status == Archived {
			t.Fatalf("archived at step %d", i)
		}
	}
	last := states[len(states)-1]
	if last.Status != Suspect || last.HarmfulCount != 50 {
		t.Fatalf("want suspect with 50 harmful, got %s %d", last.Status, last.HarmfulCount)
	}
}

func TestRecoveryNeedsRatioAndCount(t *testing.T) {
	// Suspect by ratio (1 harmful of 3 ... needs total >= 5): H M M H H -> ratio .4 suspect.
	s := run(t, ColdStart(), "HMHHM")
	if got := s[len(s)-1]; got.Status != Suspect {
		t.Fatalf("setup: want suspect, got %s", got.Status)
	}
	// With harmful = 2, no amount of helpful recovers.
	s = run(t, s[len(s)-1], strings.Repeat("H", 40))
	if got := s[len(s)-1]; got.Status != Suspect {
		t.Fatalf("recovered with harmful=2: %+v", got)
	}
	// With harmful = 1, recovery happens exactly when ratio <= 0.15.
	e := ColdStart()
	e.Status = Suspect
	e.HelpfulCount = 4
	e.HarmfulCount = 1
	s = run(t, e, "H") // 5/6 -> ratio 1/6 = .167 > .15
	if s[0].Status != Suspect {
		t.Fatalf("recovered at ratio 1/6")
	}
	s = run(t, s[0], "H") // 1/7 = .143
	if s[0].Status != Active {
		t.Fatalf("did not recover at ratio 1/7: %+v", s[0])
	}
}

func TestContextsCappedOldestDropped(t *testing.T) {
	e := ColdStart()
	for _, c := range []string{"a", "b", "c", "d"} {
		e = Apply(e, Event{Verdict: Helpful, Context: c})
	}
	e = Apply(e, Event{Verdict: Harmful, Context: "x"})
	if strings.Join(e.HelpfulContexts, ",") != "b,c,d" || strings.Join(e.HarmfulContexts, ",") != "x" {
		t.Fatalf("contexts: %v %v", e.HelpfulContexts, e.HarmfulContexts)
	}
	e = Apply(e, Event{Verdict: Neutral, Context: "n"})
	if len(e.HelpfulContexts)+len(e.HarmfulContexts) != 4 {
		t.Fatalf("neutral appended a context")
	}
}

func TestApplyDoesNotMutateInput(t *testing.T) {
	e := ColdStart()
	e.HelpfulContexts = []string{"a", "b", "c"}
	_ = Apply(e, Event{Verdict: Helpful, Context: "d"})
	if strings.Join(e.HelpfulContexts, ",") != "a,b,c" {
		t.Fatalf("input mutated: %v", e.HelpfulContexts)
	}
}

func TestTrajectoryWeight(t *testing.T) {
	tests := []struct {
		name     string
		w, out   float64
		want     float64
		multiple int
	}{
		{"success pulls toward 1.5", 1.0, 1.0, 1.05, 1},
		{"failure pulls toward 0.5", 1.0, -1.0, 0.95, 1},
		{"weak positive default", InitialWeight, 0.1, 0.9 + 1.05*0.1, 1},
		{"converges to the 1.5 ceiling", InitialWeight, 1.0, 1.5, 400},
		{"never below the 0.5 target", InitialWeight, -1.0, 0.5, 400},
		{"clamped input outcome", 1.0, 7, 1.05, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			for i := 0; i < tt.multiple; i++ {
				w = UpdateWeight(w, tt.out)
			}
			if math.Abs(w-tt.want) > 1e-6 {
				t.Fatalf("got %v want %v", w, tt.want)
			}
		})
	}
	if got := UpdateWeight(0.31, -1); got < MinWeight {
		t.Fatalf("below floor: %v", got)
	}
}

func TestImplicitOutcomeMovesOnlyWeight(t *testing.T) {
	e := ColdStart()
	if e.WeightMultiplier() != 1 {
		t.Fatalf("cold start multiplier %v, want 1", e.WeightMultiplier())
	}
	e = Apply(e, Event{Implicit: true, Outcome: -1, Verdict: Harmful})
	if e.HarmfulCount != 0 || e.ConsecutiveHarmful != 0 || e.Status != Active {
		t.Fatalf("implicit outcome changed counts/status: %+v", e)
	}
	want := UpdateWeight(InitialWeight, -1)
	if e.TrajectoryWeight != want || e.WeightMultiplier() != want || e.ImplicitOutcomes != 1 {
		t.Fatalf("weight %v multiplier %v, want %v", e.TrajectoryWeight, e.WeightMultiplier(), want)
	}
}

func TestReplayKeepsContextsAndRebuildsCounts(t *testing.T) {
	cur := ColdStart()
	cur.HelpfulCount = 99
	cur.HelpfulContexts = []string{"kept"}
	events := []Event{{Verdict: Harmful, Context: "ignored"}, {Verdict: Helpful}, {Verdict: Harmful}}
	got := Replay(cur, events)
	if got.HelpfulCount != 1 || got.HarmfulCount != 2 || got.ConsecutiveHarmful != 1 {
		t.Fatalf("counts: %+v", got)
	}
	if strings.Join(got.HelpfulContexts, ",") != "kept" || len(got.HarmfulContexts) != 0 {
		t.Fatalf("contexts not kept: %+v", got)
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"helpful", "HELPFUL", " Harmful ", "neutral"} {
		if _, err := ParseVerdict(s); err != nil {
			t.Errorf("ParseVerdict(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "good", "HELPFULL"} {
		if _, err := ParseVerdict(s); err == nil {
			t.Errorf("ParseVerdict(%q) accepted", s)
		}
	}
	if _, err := ParseStatus("retired"); err == nil {
		t.Error("ParseStatus accepted retired")
	}
}

// TestSilentStreak: sessions that injected a skill and said nothing of it
// count once each; a verdict (even NEUTRAL) or an outcome with a signal
// ends the streak.
func TestSilentStreak(t *testing.T) {
	at := func(i int) time.Time { return time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC) }
	silent := func(session string, i int) Event {
		return Event{Implicit: true, Silent: true, Session: session, At: at(i)}
	}
	e := ColdStart()
	for i, s := range []string{"s1", "s2", "s2", "s3"} { // s2 injected it twice
		e = Apply(e, silent(s, i))
	}
	if e.SilentStreak != 3 || e.ImplicitOutcomes != 0 || e.TrajectoryWeight != InitialWeight || e.WeightMultiplier() != 1 {
		t.Fatalf("streak %d, outcomes %d, weight %v; want 3 sessions, no outcome, the weight untouched", e.SilentStreak, e.ImplicitOutcomes, e.TrajectoryWeight)
	}
	if got := Apply(e, Event{Verdict: Neutral, Session: "s4", At: at(9)}); got.SilentStreak != 0 {
		t.Errorf("a NEUTRAL verdict left the streak at %d", got.SilentStreak)
	}
	if got := Apply(e, Event{Implicit: true, Outcome: 1, Session: "s4", At: at(9)}); got.SilentStreak != 0 {
		t.Errorf("a passing command left the streak at %d", got.SilentStreak)
	}
	// The agent's verdict first, then the session's silent outcome: no silence.
	v := Apply(e, Event{Verdict: Helpful, Session: "s5", At: at(10)})
	if v = Apply(v, silent("s5", 11)); v.SilentStreak != 0 {
		t.Errorf("a silent outcome after the same session's verdict counted: streak %d", v.SilentStreak)
	}
}

func TestSilenceMultiplier(t *testing.T) {
	for _, c := range []struct {
		streak int
		want   float64
	}{{0, 1}, {5, 1}, {6, math.Exp2(-0.1)}, {15, 0.5}, {200, SilenceFloor}} {
		if got := SilenceMultiplier(c.streak); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("SilenceMultiplier(%d) = %v, want %v", c.streak, got, c.want)
		}
	}
}

func TestDisableKeepsEvidence(t *testing.T) {
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	e := Apply(ColdStart(), Event{Verdict: Helpful, At: at})
	off := Apply(e, Event{Disable: true, Reason: "noisy", At: at.Add(48 * time.Hour)})
	if off.Disabled != "noisy" || off.HelpfulCount != 1 || !off.LastUpdated.Equal(at) {
		t.Fatalf("disable: %+v, want disabled, the verdict kept and the age unchanged", off)
	}
	if on := Apply(off, Event{Enable: true}); on.Disabled != "" || on.HelpfulCount != 1 {
		t.Fatalf("enable: %+v", on)
	}
	if got := Replay(ColdStart(), []Event{{Verdict: Helpful}, {Disable: true}}); got.Disabled != "disabled" {
		t.Fatalf("replay: disabled %q, want the default reason", got.Disabled)
	}
}

// TestFirstOutcomeMovesTheRightWay: the multiplier is 1 until a skill's
// first implicit outcome; that outcome never moves it the wrong way (a
// success never lowers it, a failure never raises it), whether the skill
// is new or its stored weight is the 0.85 earlier releases began with.
func TestFirstOutcomeMovesTheRightWay(t *testing.T) {
	old := ColdStart()
	old.TrajectoryWeight = 0.85 // what earlier releases stored before any outcome
	old.HelpfulCount = 2
	for _, tt := range []struct {
		name    string
		start   Evidence
		outcome float64
		want    float64
	}{
		{"new skill, success", ColdStart(), 1, 1.05},
		{"new skill, weak success", ColdStart(), 0.1, 1.005},
		{"new skill, failure", ColdStart(), -1, 0.95},
		{"new skill, neutral outcome", ColdStart(), 0, 1},
		{"stored 0.85, success", old, 1, 1.05},
		{"stored 0.85, failure", old, -1, 0.95},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if m := tt.start.WeightMultiplier(); m != 1 {
				t.Fatalf("multiplier before any outcome %v, want 1", m)
			}
			got := Apply(tt.start, Event{Implicit: true, Outcome: tt.outcome}).WeightMultiplier()
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("multiplier after the first outcome %v, want %v", got, tt.want)
			}
			if tt.outcome > 0 && got < 1 || tt.outcome < 0 && got > 1 {
				t.Errorf("outcome %v moved the multiplier from 1 to %v", tt.outcome, got)
			}
		})
	}
	// Three successes in a row: every one raises it.
	e, prev := ColdStart(), 1.0
	for i := 0; i < 3; i++ {
		e = Apply(e, Event{Implicit: true, Outcome: 1})
		if m := e.WeightMultiplier(); m <= prev {
			t.Fatalf("success %d: multiplier %v, not above %v", i+1, m, prev)
		}
		prev = e.WeightMultiplier()
	}
}

// TestReplayKeepsAnUnusedWeight: a weight no outcome produced does
// nothing, and replay keeps it as stored, so the 0.85 earlier releases
// wrote for skills without outcomes still agrees with their ledgers; a
// ledger with outcomes replays its weight from neutral.
func TestReplayKeepsAnUnusedWeight(t *testing.T) {
	cur := ColdStart()
	cur.TrajectoryWeight = 0.85
	if got := Replay(cur, []Event{{Verdict: Helpful}}); got.TrajectoryWeight != 0.85 || got.WeightMultiplier() != 1 {
		t.Errorf("verdicts only: weight %v multiplier %v, want 0.85 kept and 1", got.TrajectoryWeight, got.WeightMultiplier())
	}
	if got := Replay(cur, []Event{{Verdict: Helpful}, {Implicit: true, Outcome: 1}}); math.Abs(got.TrajectoryWeight-1.05) > 1e-9 {
		t.Errorf("with an outcome: weight %v, want 1.05", got.TrajectoryWeight)
	}
}
