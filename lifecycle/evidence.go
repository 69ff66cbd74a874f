// Package lifecycle turns verdicts into a skill's evidence state: counts,
// harmful streak, status and trajectory weight. It is pure: no I/O, no clock,
// no environment; time and outcomes come in as arguments.
package lifecycle

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Status is where a skill sits in the lifecycle; it gates routing.
type Status string

// The three statuses: active skills route normally, suspect ones at half
// their score, archived ones never.
const (
	Active   Status = "active"
	Suspect  Status = "suspect"
	Archived Status = "archived"
)

// ParseStatus accepts the spelling used in frontmatter.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case Active, Suspect, Archived:
		return Status(s), nil
	}
	return "", fmt.Errorf("unknown status %q (want active, suspect or archived)", s)
}

// Verdict is the judgement of one skill use.
type Verdict string

// The three verdict words accepted from users and agents.
const (
	Helpful Verdict = "HELPFUL"
	Harmful Verdict = "HARMFUL"
	Neutral Verdict = "NEUTRAL"
)

// ParseVerdict accepts the verdict words case-insensitively so users can type them either way.
func ParseVerdict(s string) (Verdict, error) {
	switch v := Verdict(strings.ToUpper(strings.TrimSpace(s))); v {
	case Helpful, Harmful, Neutral:
		return v, nil
	}
	return "", fmt.Errorf("unknown verdict %q (want HELPFUL, HARMFUL or NEUTRAL)", s)
}

// The lifecycle's thresholds. Three harmful verdicts in a row archive a
// skill at once, whatever its status and however few its verdicts: a run
// of recent failures, which any helpful verdict breaks, so many harmful
// verdicts spread among helpful ones make a skill suspect, never archived.
// Otherwise a skill needs five verdicts before its harmful share can make
// it suspect: a new skill is not judged on its first one or two. Recovery is
// strict: a share of at most 0.15 and at most one harmful verdict in all,
// so a skill with a long record of failures cannot recover on its ratio
// alone.
const (
	AutoArchiveThreshold    = 3    // consecutive HARMFUL verdicts that archive
	MinInvocationsForStatus = 5    // cold-start guard before suspect can trigger
	HarmfulCountThreshold   = 3    // harmful > 3 -> suspect
	HarmfulRatioThreshold   = 0.3  // ratio > 0.3 -> suspect
	RecoveryRatioCeiling    = 0.15 // suspect -> active needs ratio <= 0.15 ...
	RecoveryHarmfulCeiling  = 1    // ... and harmful <= 1
	ContextCap              = 3    // contexts kept per polarity, oldest dropped
)

// Trajectory-weight constants: an exponential moving average of implicit
// outcomes (alpha 0.1, so about ten sessions move it), kept within
// [0.3, 1.5] so no run of sessions can silence or crown a skill alone.
const (
	// InitialWeight is neutral, the multiplier of a skill without
	// outcomes: the average starts there at the first outcome, so a first
	// success raises the multiplier and a first failure lowers it.
	// (Releases before it started the average at 0.85, so a first
	// success dropped a skill from ×1 to ×0.915.)
	InitialWeight = 1.0
	MinWeight     = 0.3
	MaxWeight     = 1.5
	WeightAlpha   = 0.1
)

// The silence penalty: a skill injected session after session and never
// used is probably matching prompts it does not serve. Past a grace of
// MinInvocationsForStatus silent sessions (a new skill is not judged on a
// handful, as for status), its score halves with every SilenceHalving
// more, down to the suspect multiplier: silence alone never archives.
const (
	SilenceHalving = 10  // silent sessions that halve the multiplier, the trajectory EMA's ten
	SilenceFloor   = 0.5 // the lowest multiplier, a suspect skill's
)

// SilenceMultiplier is the factor a silent streak puts on the skill's
// score: 1 up to the grace, then halving every SilenceHalving sessions,
// never below SilenceFloor.
func SilenceMultiplier(streak int) float64 {
	if streak <= MinInvocationsForStatus {
		return 1
	}
	return math.Max(SilenceFloor, math.Exp2(-float64(streak-MinInvocationsForStatus)/SilenceHalving))
}

// Evidence is the materialised view of a skill's ledger, stored as mega_meta.
type Evidence struct {
	HelpfulCount       int
	HarmfulCount       int
	HelpfulContexts    []string
	HarmfulContexts    []string
	Status             Status
	ConsecutiveHarmful int
	// TrajectoryWeight is that moving average; it multiplies the score only once
	// ImplicitOutcomes > 0, so skills without outcome data are never penalised.
	// Until then it is unused: the first outcome starts from InitialWeight,
	// whatever is stored (earlier releases stored 0.85).
	TrajectoryWeight float64
	ImplicitOutcomes int
	// SilentStreak counts the sessions in a row that injected the skill and
	// then said nothing of it: no verdict from the agent, no command, no
	// correction, no thanks. Any verdict or signal resets it.
	SilentStreak  int
	LastSessionID string
	LastUpdated   time.Time
	// Disabled is why the skill was turned off (`megagit skill disable`):
	// it is never injected, whatever its status. "" when it may be.
	Disabled string
}

// ColdStart is the evidence of a skill nobody has judged yet.
func ColdStart() Evidence {
	return Evidence{Status: Active, TrajectoryWeight: InitialWeight}
}

// Total is the number of HELPFUL and HARMFUL verdicts.
func (e Evidence) Total() int { return e.HelpfulCount + e.HarmfulCount }

// IsColdStart reports whether no verdict or outcome has touched the skill.
func (e Evidence) IsColdStart() bool {
	return e.Total() == 0 && e.ImplicitOutcomes == 0 && e.ConsecutiveHarmful == 0
}

// WeightMultiplier is the trajectory factor the ranker applies: 1 until an
// implicit outcome has been observed, then the EMA weight.
func (e Evidence) WeightMultiplier() float64 {
	if e.ImplicitOutcomes == 0 {
		return 1
	}
	return e.TrajectoryWeight
}
