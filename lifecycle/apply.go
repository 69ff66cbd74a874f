package lifecycle

import "time"

// Event is one ledger entry as the lifecycle sees it.
type Event struct {
	Verdict Verdict
	// Implicit marks an outcome derived from a session (what the user and the
	// shell said next, not a verdict the agent gave): it moves
	// only the trajectory weight, never counts or status.
	Implicit bool
	// Silent marks an implicit outcome with no signal at all: the session
	// injected the skill and then nothing showed it was used.
	Silent  bool
	Outcome float64
	// Unarchive is the explicit action that is the only way out of archived.
	Unarchive bool
	// Disable and Enable are the explicit switch that keeps a skill from
	// routing (Evidence.Disabled, Reason its why) or lets it route again;
	// they touch nothing else of the evidence, not even its age.
	Disable, Enable bool
	// Use is a prompt the skill served, learnt from an agent's history
	// and shared (`megagit learn share`): evidence for routing only, never
	// a verdict, so it leaves the evidence as it is, even its age.
	Use     bool
	Reason  string
	Context string
	Session string
	At      time.Time
}

// Apply folds one event into the evidence and returns the new state; the
// input is not modified.
func Apply(e Evidence, ev Event) Evidence {
	e = e.clone()
	switch {
	case ev.Use:
		return e
	case ev.Disable:
		e.Disabled = ev.Reason
		if e.Disabled == "" {
			e.Disabled = "disabled"
		}
		return e
	case ev.Enable:
		e.Disabled = ""
		return e
	}
	if !ev.At.IsZero() {
		e.LastUpdated = ev.At.UTC()
	}
	// A session counts once: a silent outcome in a session that already
	// gave the skill a verdict or another outcome is no silence.
	sameSession := ev.Session != "" && ev.Session == e.LastSessionID
	if ev.Session != "" {
		e.LastSessionID = ev.Session
	}
	switch {
	case ev.Unarchive:
		e.Status = Active
		e.ConsecutiveHarmful = 0
		return e
	case ev.Implicit && ev.Silent:
		// No signal: not an outcome (the weight stays), only silence.
		if !sameSession {
			e.SilentStreak++
		}
		return e
	case ev.Implicit:
		if e.ImplicitOutcomes == 0 {
			e.TrajectoryWeight = InitialWeight // the average starts at neutral
		}
		e.TrajectoryWeight = UpdateWeight(e.TrajectoryWeight, ev.Outcome)
		e.ImplicitOutcomes++
		e.SilentStreak = 0
		return e
	}
	e.SilentStreak = 0 // the agent said something of the skill, even NEUTRAL
	switch ev.Verdict {
	case Helpful:
		e.HelpfulCount++
		e.ConsecutiveHarmful = 0
		e.HelpfulContexts = appendCapped(e.HelpfulContexts, ev.Context)
	case Harmful:
		e.HarmfulCount++
		e.ConsecutiveHarmful++
		e.HarmfulContexts = appendCapped(e.HarmfulContexts, ev.Context)
	default:
		return e // NEUTRAL: no signal, streak kept
	}
	e.Status = refresh(e)
	return e
}

// refresh is the status a skill's evidence gives: archived on a harmful
// streak, suspect on a high harmful count or share once five verdicts are
// in, back to active when the share falls low again. Archived never leaves
// here: only an explicit unarchive does, so a skill pulled for harm comes
// back only when a person says so.
func refresh(e Evidence) Status {
	if e.ConsecutiveHarmful >= AutoArchiveThreshold || e.Status == Archived {
		return Archived
	}
	total := e.Total()
	if total < MinInvocationsForStatus {
		return e.Status
	}
	ratio := float64(e.HarmfulCount) / float64(total)
	if e.HarmfulCount > HarmfulCountThreshold || ratio > HarmfulRatioThreshold {
		return Suspect
	}
	if e.Status == Suspect && ratio <= RecoveryRatioCeiling && e.HarmfulCount <= RecoveryHarmfulCeiling {
		return Active
	}
	return e.Status
}

// Replay rebuilds evidence from the ledger in time order, the way resync does:
// counts, streak, status, weight and last-* come from the events, while the
// natural-language contexts are kept as they are (a ledger line's context
// is capped and cleaned; the stored ones may be older and are not rebuilt),
// and so is a weight no outcome made: it does nothing until one comes, so
// the 0.85 earlier releases stored for a skill without outcomes still
// agrees with its ledger.
func Replay(current Evidence, events []Event) Evidence {
	e := ColdStart()
	for _, ev := range events {
		e = Apply(e, ev)
	}
	e.HelpfulContexts = append([]string(nil), current.HelpfulContexts...)
	e.HarmfulContexts = append([]string(nil), current.HarmfulContexts...)
	if e.ImplicitOutcomes == 0 && current.TrajectoryWeight >= MinWeight && current.TrajectoryWeight <= MaxWeight {
		e.TrajectoryWeight = current.TrajectoryWeight
	}
	return e
}

// UpdateWeight moves the trajectory weight toward 1 + 0.5·outcome (a clean
// success pulls toward 1.5, a correction toward 0.5), clamped.
func UpdateWeight(w, outcome float64) float64 {
	if outcome > 1 {
		outcome = 1
	} else if outcome < -1 {
		outcome = -1
	}
	target := 1 + 0.5*outcome
	w = w*(1-WeightAlpha) + target*WeightAlpha
	return clamp(w, MinWeight, MaxWeight)
}

func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func appendCapped(list []string, ctx string) []string {
	if ctx == "" {
		return list
	}
	list = append(list, ctx)
	if len(list) > ContextCap {
		list = list[len(list)-ContextCap:]
	}
	return list
}

func (e Evidence) clone() Evidence {
	e.HelpfulContexts = append([]string(nil), e.HelpfulContexts...)
	e.HarmfulContexts = append([]string(nil), e.HarmfulContexts...)
	return e
}
