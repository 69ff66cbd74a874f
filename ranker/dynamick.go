package ranker

import (
	"math"
	"strings"
)

// DynamicK holds the thresholds that choose how many skills to surface
// from the shape of one query's scores: a clear leader gets K small, a flat
// top widens K, and a weak, flat top abstains.
type DynamicK struct {
	// AbsFloor abstains when the top score is below it; <= 0 turns it off.
	AbsFloor float64
	// AbstainZTop1 and AbstainZEnt: abstain when the leader is weak in
	// z-units and the softmax of the top-10 z-scores is flat.
	AbstainZTop1, AbstainZEnt float64
	// VeryAmbigZEnt and AmbigZEnt widen K to KVeryAmbig or KAmbig.
	VeryAmbigZEnt, AmbigZEnt float64
	// KMin and KMax clamp the elbow cut.
	KMin, KMax         int
	KAmbig, KVeryAmbig int
	// Gate, when set and it (or a gate below it) was fitted on catalogs as
	// small as this one (Gate.For), decides whether anything fits in place
	// of AbsFloor and the uniform-null branch, and each backup beyond the
	// leader must pass it as a leader would (Rank).
	Gate *Gate
}

// Dynamic-K windows: enough scores for a stable mean and spread, a top
// short enough that the tail of a large catalog does not flatten it.
const (
	zWindow    = 20 // scores used for mean and sd
	entWindow  = 10 // z-scores in the softmax entropy
	elbowWidth = 9  // scores whose consecutive gaps locate the elbow
)

// DefaultDynamicK is the base every profile starts from: no floor, and
// abstain on z-statistics alone, so one set of thresholds serves models
// whose cosines sit in different ranges. It abstains only when the leader
// is under 1.8 standard deviations above the top 20's mean and the top
// 10's softmax entropy is over 1.85: measured with two embedding models on
// 100 prompts that had a skill and 50 that had none, that point wrongly
// abstains on 2-3% of the former and catches 2-4% of the latter, a
// conservative choice, since a wrong abstention loses a skill the agent
// needed while a wrong injection costs a few tokens. An entropy over 1.7
// (about a quarter of those prompts) widens K to 5, over 2.1 (about one in
// twenty) to 10; otherwise K cuts at the largest gap between scores,
// between 2 and 8: never 1, so a wrong leader still has a backup.
func DefaultDynamicK() DynamicK {
	return DynamicK{
		AbstainZTop1: 1.8, AbstainZEnt: 1.85,
		VeryAmbigZEnt: 2.1, AmbigZEnt: 1.7,
		KMin: 2, KMax: 8, KAmbig: 5, KVeryAmbig: 10,
	}
}

// Embedder tiers: the better a ranker puts the right skill first, the
// smaller K can stay.
const (
	TierStrong = "strong"
	TierMedium = "medium"
	TierWeak   = "weak"
)

// ProfileFor returns a tier's K bounds, with the default z
// thresholds and no floor; an unknown tier gets the strong bounds.
func ProfileFor(tier string) DynamicK {
	c := DefaultDynamicK()
	switch tier {
	case TierMedium:
		c.KMin, c.KMax, c.KAmbig, c.KVeryAmbig = 3, 15, 7, 12
	case TierWeak:
		c.KMin, c.KMax, c.KAmbig, c.KVeryAmbig = 5, 20, 10, 15
	default:
		c.KMin, c.KMax, c.KAmbig, c.KVeryAmbig = 2, 10, 5, 10
	}
	return c
}

// modelProfiles are the absolute cosine floors and tiers of known embedding
// model families: a family's cosines sit in its own range (a good match
// scores about 0.45 with SkillRet and 0.78 with BGE), so one floor cannot
// serve all. The floors were measured on a skill-routing benchmark for
// BGE-M3, SkillRet, Qwen3 and BGE-small, and guessed from the family for
// BGE-large and the e5 models (models.Profile says which).
var modelProfiles = []struct {
	key, tier string
	floor     float64
}{
	{"bge-m3", TierStrong, 0.60},
	{"skillret", TierStrong, 0.40},
	{"qwen3", TierStrong, 0.35},
	{"bge-small", TierWeak, 0.70},
	{"bge-large", TierMedium, 0.65},
	{"e5-small", TierWeak, 0.40},
	{"e5-base", TierMedium, 0.45},
}

// ProfileForModel picks the profile of a known embedding model id
// (matched on its family name); unknown models get z-only abstain with
// strong-tier bounds.
func ProfileForModel(modelID string) DynamicK {
	id := strings.ToLower(modelID)
	for _, p := range modelProfiles {
		if strings.Contains(id, p.key) {
			c := ProfileFor(p.tier)
			c.AbsFloor = p.floor
			return c
		}
	}
	return ProfileFor(TierStrong)
}

// LexicalTier and LexicalAbsFloor are the profile of the built-in lexical
// channel, chosen by sweeping them with `megagit eval` on the development
// benchmarks. The floor is on normalised relevance: the share of the query's maximum attainable
// BM25F score the best skill reaches.
const (
	LexicalTier     = TierMedium
	LexicalAbsFloor = 0.10
)

// LexicalProfile is the dynamic-K profile used when no embedder is loaded.
func LexicalProfile() DynamicK {
	c := ProfileFor(LexicalTier)
	c.AbsFloor = LexicalAbsFloor
	return c
}

// KDecision is the dynamic-K outcome with the statistics behind it, for
// telemetry and `why`.
type KDecision struct {
	K      int     `json:"k"`
	Reason KReason `json:"reason"`
	// ZTop1 is the leader's z-score over the top-20; ZEnt the entropy of
	// the softmax of the top-10 z-scores; Elbow the index of the largest
	// raw gap in the top-9 (-1 when not reached).
	ZTop1 float64 `json:"z_top1"`
	ZEnt  float64 `json:"z_ent"`
	Elbow int     `json:"elbow"`
	// GateProb is the gate's probability that some skill fits (nil
	// without a gate).
	GateProb *float64 `json:"gate_p,omitempty"`
}

// Decide picks K for scores sorted in decreasing order. K never exceeds
// len(scores).
func (c DynamicK) Decide(scores []float64) KDecision {
	return c.DecideGated(scores, Signals{})
}

// DecideGated is Decide with the gate, when c has one that applies to
// sig's catalog, reading sig: below its threshold nothing is emitted
// (ReasonGate); above it the floor and the uniform-null branch are
// skipped, so a flat but confident multi-skill match keeps its K.
func (c DynamicK) DecideGated(scores []float64, sig Signals) KDecision {
	if len(scores) == 0 {
		return KDecision{Reason: ReasonEmpty, Elbow: -1}
	}
	zTop1, zEnt := zStats(scores)
	at := elbow(scores)
	d := KDecision{ZTop1: zTop1, ZEnt: zEnt, Elbow: -1}
	if g := c.Gate.For(sig.Skills); g != nil {
		p := g.Prob(sig)
		d.GateProb = &p
		if p < g.Threshold {
			d.Reason = ReasonGate
			return d
		}
		// The gate said something fits: no floor, no uniform-null.
		c.AbsFloor, c.AbstainZTop1 = 0, math.Inf(-1)
	}
	d.K, d.Reason = c.decide(scores[0], zTop1, zEnt, at)
	if d.Reason.IsGapCut() {
		d.Elbow = at // reported only where it decided
	}
	d.K = min(d.K, len(scores))
	return d
}

// zStats computes z_top1 over the top-20 (population sd) and the softmax
// entropy of the top-10 z-scores. With sd = 0 every z is 0: z_top1 = 0 and
// the entropy is that of a uniform distribution, ln(n).
func zStats(scores []float64) (zTop1, zEnt float64) {
	s := scores[:min(len(scores), zWindow)]
	var mean float64
	for _, x := range s {
		mean += x
	}
	mean /= float64(len(s))
	var v float64
	for _, x := range s {
		v += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(v / float64(len(s)))
	z := make([]float64, min(len(s), entWindow))
	if sd > 1e-12 {
		for i := range z {
			z[i] = (s[i] - mean) / sd
		}
	}
	zTop1 = z[0]
	// Softmax at T = 1, shifted by the max for stability.
	var sum float64
	p := make([]float64, len(z))
	for i, x := range z {
		p[i] = math.Exp(x - z[0])
		sum += p[i]
	}
	for _, x := range p {
		if q := x / sum; q > 0 {
			zEnt -= q * math.Log(q)
		}
	}
	return zTop1, zEnt
}

// decide applies dynamic K's branches in order: abs floor, uniform-null,
// very-ambiguous, ambiguous, elbow cut (after the score at index elbowAt,
// the scores' elbow). Decide and tune's replays both come through here.
func (c DynamicK) decide(top1, zTop1, zEnt float64, elbowAt int) (k int, r KReason) {
	switch {
	case c.AbsFloor > 0 && top1 < c.AbsFloor:
		return 0, ReasonAbsFloor
	case zTop1 < c.AbstainZTop1 && zEnt > c.AbstainZEnt:
		return 0, ReasonUniformNull
	case zEnt > c.VeryAmbigZEnt:
		return c.KVeryAmbig, ReasonVeryAmbiguous
	case zEnt > c.AmbigZEnt:
		return c.KAmbig, ReasonAmbiguous
	}
	return min(max(elbowAt+1, c.KMin), c.KMax), GapCut(elbowAt)
}

// elbow is the index of the largest consecutive raw gap among the top-9
// scores (the first one on ties); 0 with fewer than two scores.
func elbow(scores []float64) int {
	s := scores[:min(len(scores), elbowWidth)]
	best, at := math.Inf(-1), 0
	for i := 0; i+1 < len(s); i++ {
		if g := s[i] - s[i+1]; g > best {
			best, at = g, i
		}
	}
	return at
}
