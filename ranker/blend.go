package ranker

import (
	"math"
	"time"
)

// Blend holds the evidence weights: how far past verdicts may move a skill
// from its relevance. Enabled false reverts the final score to pure
// relevance (MEGA_EVAL_BLEND=0).
type Blend struct {
	Enabled bool
	// Count weighs the Beta-smoothed helpful-rate bonus.
	Count float64
	// Context weighs helpful_ctx - Harm*harmful_ctx.
	Context float64
	// Harm is the asymmetry on harmful context matches.
	Harm float64
	// Related weighs related_help - related_harm over past verdict reasons.
	Related float64
	// Learnt is what a prompt learnt from the agents' history weighs next
	// to an explicit HELPFUL verdict's context (Context), in (0, 1].
	Learnt float64
	// Suspect is the status multiplier of a suspect skill.
	Suspect float64
	// HalfLifeDays fades evidence with its age: every term learnt from
	// verdicts and sessions (the count bonus, context and related terms,
	// the trajectory weight's and the silence penalty's distance from 1)
	// halves every HalfLifeDays days since the skill's evidence last
	// changed. 0: evidence never fades.
	HalfLifeDays float64
}

// DefaultBlend keeps relevance in charge: each evidence term stays small
// next to it (the count bonus within ±0.05, the others a few tenths at
// most), so a clear gap in relevance wins and evidence breaks near-ties.
// Harmful context matches weigh 1.5 times helpful ones, because injecting
// a skill that misleads costs more than missing one that helps. The count
// bonus and the related verdicts weigh the same 0.10, so one very similar
// past verdict counts about as much as a fully warmed-up helpful rate and
// cannot drown it. A suspect skill's score is halved: it usually loses
// the cut to an active skill of similar relevance, but stays in the list
// and can earn its way back.
func DefaultBlend() Blend {
	return Blend{Enabled: true, Count: 0.10, Context: 0.15, Harm: 1.5, Related: 0.10, Learnt: DefaultLearnt, Suspect: 0.5, HalfLifeDays: DefaultHalfLifeDays}
}

// DefaultLearnt weighs a prompt learnt from history half an explicit
// HELPFUL verdict's: the skill was used after it, but nobody said it
// helped.
const DefaultLearnt = 0.5

// DefaultHalfLifeDays is how long evidence keeps half its pull: a month,
// the reference design's memory half-life. Skills that keep being used
// keep fresh evidence (every verdict and session renews it); one nobody
// has used for a season drifts back to its relevance alone.
const DefaultHalfLifeDays = 30

// Decay is the share of its pull that evidence last changed at updated
// (Unix seconds) keeps at now: 1/2 per HalfLifeDays, counted in whole days,
// so evidence from today counts in full. It is 1 without a half-life, a
// clock or a date.
func (b Blend) Decay(updated int64, now time.Time) float64 {
	if b.HalfLifeDays <= 0 || updated <= 0 || now.IsZero() {
		return 1
	}
	days := math.Floor(float64(now.Unix()-updated) / 86400)
	if days <= 0 {
		return 1
	}
	return math.Exp2(-days / b.HalfLifeDays)
}

// countRamp is the number of verdicts at which the count bonus reaches full
// strength.
const countRamp = 10

// ArchivedScore is the final score of an archived skill: below any real
// score, so it is listed last and never emitted.
const ArchivedScore = -1.0

// Breakdown is every term of one skill's score for one query: what
// `megagit why` prints, and what adds up to Final.
type Breakdown struct {
	// Doc is the skill's index in the Index's docs.
	Doc int    `json:"-"`
	ID  string `json:"skill"`
	// Out is set when the skill's paths keep it out for this prompt
	// (Options.Out): ranked last with the archived, never emitted.
	Out bool `json:"out_of_paths,omitempty"`
	// Denied is set when the configuration's deny list names the skill
	// (Options.Deny): ranked last with the archived, never emitted.
	Denied bool `json:"denied,omitempty"`
	// Held is set when the skill is held back (Options.Held):
	// ranked last with the archived, never emitted.
	Held bool `json:"held,omitempty"`
	// Forced is set when the configuration's force list names the skill
	// (Options.Force) and it was emitted because of it: the prompt
	// matches it, and the gate, K or the cap would have left it out.
	Forced bool `json:"forced,omitempty"`
	// Relevance is the fused relevance; LexicalRaw is the raw BM25F score,
	// Lexical the normalised one in [0, 1], Dense the dense score if any.
	Relevance  float64  `json:"relevance"`
	LexicalRaw float64  `json:"bm25f"`
	Lexical    float64  `json:"lexical"`
	Dense      *float64 `json:"dense,omitempty"`
	// CountRaw is the ramped, smoothed helpful rate minus 0.5, in
	// [-0.5, 0.5]; Count is its weighted contribution.
	CountRaw float64 `json:"count_raw"`
	Count    float64 `json:"count_bonus"`
	Helpful  int     `json:"helpful_count"`
	Harmful  int     `json:"harmful_count"`
	// HelpCtx and HarmCtx are the best similarities of the query to the
	// skill's helpful and harmful contexts; Context is the weighted term.
	HelpCtx float64 `json:"help_ctx"`
	HarmCtx float64 `json:"harm_ctx"`
	// The two channels behind them: word overlap (TF-IDF cosine), and,
	// with a model, its cosine above its floor (Options.Contexts);
	// HelpCtx and HarmCtx are the larger of each pair.
	HelpCtxWords float64 `json:"help_ctx_words,omitempty"`
	HarmCtxWords float64 `json:"harm_ctx_words,omitempty"`
	HelpCtxModel float64 `json:"help_ctx_model,omitempty"`
	HarmCtxModel float64 `json:"harm_ctx_model,omitempty"`
	Context      float64 `json:"context_match"`
	// LearntCtx is the model's best similarity of the query to the prompts
	// learnt from the agents' history (their words count in the word
	// channel's contexts field instead), LearntDecay the share its age
	// keeps, Learnt the weighted term.
	LearntCtx   float64 `json:"learnt_ctx,omitempty"`
	LearntDecay float64 `json:"learnt_decay,omitempty"`
	Learnt      float64 `json:"learnt_match,omitempty"`
	// RelatedHelp and RelatedHarm are the best similarities to past
	// helpful and harmful verdict reasons; Related is the weighted term.
	RelatedHelp float64 `json:"related_help_max"`
	RelatedHarm float64 `json:"related_harm_max"`
	// RelatedHelpModel and RelatedHarmModel are the model's part of them
	// (its cosine above its floor, Options.Contexts); the word-overlap part
	// is the rest.
	RelatedHelpModel float64 `json:"related_help_model,omitempty"`
	RelatedHarmModel float64 `json:"related_harm_model,omitempty"`
	Related          float64 `json:"related_verdict"`
	Weight           float64 `json:"trajectory_weight"`
	// Silence is the silence penalty's multiplier, 1 for none.
	Silence float64 `json:"silence_mult"`
	// AgeDays is the evidence's age in whole days, Decay the share of its
	// pull it keeps (Blend.Decay); the terms above and the distances of
	// Weight and Silence from 1 are already faded by it.
	AgeDays    int     `json:"evidence_age_days,omitempty"`
	Decay      float64 `json:"evidence_decay"`
	Status     string  `json:"status"`
	StatusMult float64 `json:"status_mult"`
	Final      float64 `json:"final"`
}

// Archived reports whether the skill is out of the candidate set.
func (b Breakdown) Archived() bool { return b.Status == StatusArchived }

// Excluded reports whether the skill cannot be emitted for this prompt:
// archived, out by its paths, denied by the configuration or held back.
func (b Breakdown) Excluded() bool { return b.Archived() || b.Out || b.Denied || b.Held }

// CountBonus is the Beta(1,1)-smoothed helpful rate minus one half, ramped
// linearly to full strength over the first ten verdicts: zero for a cold
// start, within [-0.5, 0.5] always.
func CountBonus(helpful, harmful int) float64 {
	n := helpful + harmful
	if n <= 0 {
		return 0
	}
	rate := (float64(helpful) + 1) / (float64(n) + 2)
	return (rate - 0.5) * math.Min(1, float64(n)/countRamp)
}

// StatusMultiplier maps a status to its gate: active 1, suspect
// b.Suspect, archived -1 (the sentinel, applied by Apply).
func (b Blend) StatusMultiplier(status string) float64 {
	switch status {
	case StatusSuspect:
		return b.Suspect
	case StatusArchived:
		return ArchivedScore
	}
	return 1
}

// Apply fills the blend terms and Final of a breakdown whose relevance and
// similarity inputs (HelpCtx, HarmCtx, RelatedHelp, RelatedHarm) are set.
// A cold-start skill ends with Final == Relevance exactly.
func (b Blend) Apply(bd *Breakdown) {
	bd.StatusMult = b.StatusMultiplier(bd.Status)
	if bd.Status == StatusArchived {
		bd.CountRaw, bd.Count, bd.HelpCtx, bd.HarmCtx, bd.Context = 0, 0, 0, 0, 0
		bd.HelpCtxWords, bd.HarmCtxWords, bd.HelpCtxModel, bd.HarmCtxModel = 0, 0, 0, 0
		bd.RelatedHelp, bd.RelatedHarm, bd.Related = 0, 0, 0
		bd.RelatedHelpModel, bd.RelatedHarmModel = 0, 0
		bd.LearntCtx, bd.Learnt = 0, 0
		bd.Silence, bd.Decay = 1, 1
		bd.Final = ArchivedScore
		return
	}
	if !b.Enabled {
		bd.CountRaw, bd.Count, bd.Context, bd.Related, bd.Learnt = 0, 0, 0, 0, 0
		bd.StatusMult, bd.Silence, bd.Decay = 1, 1, 1
		bd.Final = bd.Relevance
		return
	}
	if bd.Decay == 0 {
		bd.Decay = 1
	}
	if bd.Silence == 0 {
		bd.Silence = 1
	}
	d := bd.Decay
	bd.CountRaw = CountBonus(bd.Helpful, bd.Harmful)
	bd.Count = b.Count * bd.CountRaw * d
	bd.Context = b.Context * (bd.HelpCtx - b.Harm*bd.HarmCtx) * d
	bd.Related = b.Related * (bd.RelatedHelp - bd.RelatedHarm) * d
	if bd.LearntCtx > 0 {
		ld := bd.LearntDecay
		if ld == 0 {
			ld = 1
		}
		bd.Learnt = b.Context * b.Learnt * bd.LearntCtx * ld
	}
	if d != 1 {
		bd.Weight = 1 + (bd.Weight-1)*d
		bd.Silence = 1 + (bd.Silence-1)*d
	}
	sum := bd.Relevance
	// Adding exact zeros keeps a cold start bit-identical to its relevance.
	for _, t := range []float64{bd.Count, bd.Context, bd.Related, bd.Learnt} {
		if t != 0 {
			sum += t
		}
	}
	bd.Final = sum
	if bd.Weight != 1 {
		bd.Final *= bd.Weight
	}
	if bd.Silence != 1 {
		bd.Final *= bd.Silence
	}
	if bd.StatusMult != 1 {
		bd.Final *= bd.StatusMult
	}
}
