package ranker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultTopK is the fixed K when dynamic K is off and no TopK is given.
const DefaultTopK = 5

// Options are the per-query knobs of Rank.
type Options struct {
	// TopK caps how many skills are emitted; with NoDynamicK it is the
	// fixed K (DefaultTopK when <= 0). <= 0 means no cap otherwise.
	TopK       int
	NoDynamicK bool
	// Dense is an optional per-skill semantic score in [0, 1], in doc
	// order, fused with the lexical score as Config.Fusion says. Nil means
	// lexical only.
	Dense []float64
	// Profile overrides the index's dynamic-K profile, e.g. with the
	// profile of the embedder that produced Dense.
	Profile *DynamicK
	// Contexts, with Dense, are the semantic channel's similarities of the
	// prompt to each skill's helpful and harmful contexts (the prompts of
	// past sessions): a context matches in either channel, so a new prompt
	// in other words than a past one still finds what that session learnt.
	Contexts *ContextScores
	// DenseFloor is the semantic channel's own floor (cosine): with Dense
	// set, a skill is a candidate when it shares a term with the prompt or
	// its dense score reaches this floor: the union of both channels'
	// candidates, so a paraphrase sharing no word can still be found, with
	// a floor so the dense channel alone does not admit every skill.
	DenseFloor float64
	// Out, in doc order (nil: none), marks the skills that may not be
	// emitted for this prompt: their paths match neither the working
	// directory nor a file the prompt names. They rank last, with the
	// archived.
	Out []bool
	// Deny, in doc order (nil: none), marks the skills the configuration
	// never lets through (deny:): excluded as Out's are.
	Deny []bool
	// Held, in doc order (nil: none), marks the skills held back (a
	// Doc.Held rule the user has not allowed): ranked, never emitted.
	Held []bool
	// Force, in doc order (nil: none), marks the skills the configuration
	// emits whenever the prompt matches them at all (force:): a forced
	// skill that is a candidate (it shares a term with the prompt, or its
	// dense score reaches DenseFloor) and not excluded is emitted even when
	// the gate or dynamic K would leave it out; TopK still caps the
	// emitted skills, forced ones first.
	Force []bool
	// Now is when the prompt is asked: evidence fades with its age at Now
	// (Blend.HalfLifeDays). Zero: no fading.
	Now time.Time
	// Also are words that join the query after the text, at full weight,
	// outside the long prompt's sentences (the project's name, which the
	// prompt hook adds): text + "\n" + Also is the query of a short prompt.
	Also string
	// Similar, with SimilarDup > 0, is how alike two skills are (by doc
	// index) for MMR: the dense channel's cosine of their stored name and
	// description vectors, which finds two skills that say the same thing
	// in other words; MMR then drops a candidate at SimilarDup or above
	// (the model's duplicate cosine) beside one already chosen. Nil: MMR
	// compares the skills' TF-IDF vectors, dropping at Config.MMR.DupSim.
	Similar    func(a, b int) float64
	SimilarDup float64
	// Head, when > 0, asks for the head of the ranking only: Result.Ranked
	// then holds the first Head skills in ranking order (at least; all of
	// them when the catalog is small, or the decisions read further), and
	// what the decisions read of the others is kept as a few numbers per
	// skill. A caller that reads the head (the prompt hook: what it emits,
	// the top scores it logs) spares sorting thousands of skills and
	// filling a breakdown for each. 0: Ranked holds every skill in order.
	Head int
}

// ContextScores are per-skill similarities of a prompt to the skill's
// helpful and harmful contexts, in doc order (0: none, or no context).
type ContextScores struct {
	Help, Harm []float64
	// RelHelp and RelHarm are the same for the reasons of the skill's past
	// helpful and harmful verdicts (the related-verdict term).
	RelHelp, RelHarm []float64
	// Learnt is the same for the prompts learnt from history (Doc.Learnt;
	// their words count in the contexts field of the word channel).
	Learnt []float64
}

// candidate reports whether a skill may be emitted at all: it must match
// the prompt in at least one channel.
func candidate(b Breakdown, denseFloor float64) bool {
	if b.Relevance <= 0 {
		return false
	}
	if b.Dense == nil || b.Lexical > 0 {
		return true
	}
	return *b.Dense >= denseFloor
}

// KReason names the branch that chose how many skills a prompt gets. Its
// text is read by people and tools (`route --json`, the decision log,
// hook.log), so a value never changes once shipped.
type KReason string

// The reasons dynamic K (its branches, in the order Decide tries them),
// Rank's gates around it and the render give.
const (
	ReasonAbsFloor      KReason = "abs-floor"      // the top score is below the floor: abstain
	ReasonUniformNull   KReason = "uniform-null"   // a weak leader over flat scores: abstain
	ReasonGate          KReason = "gate"           // the abstention gate says no skill fits
	ReasonVeryAmbiguous KReason = "very-ambiguous" // flatter still: K = KVeryAmbig
	ReasonAmbiguous     KReason = "ambiguous"      // flat: K = KAmbig
	gapCutPrefix        KReason = "gap-cut@"       // GapCut(N): K cut after the largest gap, at N
	ReasonEmpty         KReason = "empty"          // no score to decide on
	ReasonEmptyQuery    KReason = "empty-query"    // the prompt has no term and no dense channel
	ReasonNoMatch       KReason = "no-match"       // no skill matches the prompt in any channel
	ReasonFixed         KReason = "fixed"          // dynamic K is off: K is the fixed TopK
	// ReasonLexicalDominant: one skill's raw BM25F score leads the rest by
	// far (the lexical fast path: an exact-name hit needs no second
	// opinion), so it alone is emitted.
	ReasonLexicalDominant KReason = "lexical-dominant"
	// ReasonBudget is appended to the reason when the render's token
	// budget dropped some of what K chose.
	ReasonBudget KReason = "+budget"
)

// gapCuts are GapCut's reasons for every elbow dynamic K can find, made
// once: tune replays Decide's branches a million times.
var gapCuts = func() (r [elbowWidth - 1]KReason) {
	for i := range r {
		r[i] = gapCutPrefix + KReason(strconv.Itoa(i))
	}
	return r
}()

// GapCut is the reason of an elbow cut after the score at index elbow.
func GapCut(elbow int) KReason {
	if elbow >= 0 && elbow < len(gapCuts) {
		return gapCuts[elbow]
	}
	return gapCutPrefix + KReason(strconv.Itoa(elbow))
}

// IsGapCut reports whether the elbow cut chose K.
func (r KReason) IsGapCut() bool { return strings.HasPrefix(string(r), string(gapCutPrefix)) }

// Dynamic reports whether dynamic K's own thresholds chose K (not a gate
// around it, a fixed K or the lexical fast path): the decisions tune can
// replay under other thresholds.
func (r KReason) Dynamic() bool {
	switch r {
	case ReasonAbsFloor, ReasonUniformNull, ReasonVeryAmbiguous, ReasonAmbiguous:
		return true
	}
	return r.IsGapCut()
}

// Explain says in words what the reason means, for a person reading
// `megagit route --verbose`; a reason with "+budget" or "+force" appended
// says that too.
func (r KReason) Explain() string {
	base, extra := string(r), []string{}
	for _, suffix := range []KReason{ReasonForced, ReasonBudget} {
		if b, ok := strings.CutSuffix(base, string(suffix)); ok {
			base = b
			switch suffix {
			case ReasonBudget:
				extra = append([]string{"the token budget (route.budget) left some out"}, extra...)
			case ReasonForced:
				extra = append([]string{"a skill the force: list names was added"}, extra...)
			}
		}
	}
	var why string
	switch KReason(base) {
	case ReasonAbsFloor:
		why = "the best skill's score is below the floor: none is close enough"
	case ReasonUniformNull:
		why = "no skill stands out: a weak leader over flat scores"
	case ReasonGate:
		why = "the abstention gate judged that no skill fits"
	case ReasonVeryAmbiguous:
		why = "the scores are very flat, so several close skills are offered"
	case ReasonAmbiguous:
		why = "the scores are flat, so a few close skills are offered"
	case ReasonEmpty:
		why = "there is no skill to rank"
	case ReasonEmptyQuery:
		why = "the prompt has no word to match"
	case ReasonNoMatch:
		why = "no skill shares a word or a meaning with the prompt"
	case ReasonFixed:
		why = "dynamic K is off: the top route.top_k skills are offered"
	case ReasonLexicalDominant:
		why = "one skill's words match far better than any other's"
	default:
		if n, ok := strings.CutPrefix(base, string(gapCutPrefix)); ok {
			if i, err := strconv.Atoi(n); err == nil {
				why = fmt.Sprintf("cut at the largest drop in score, after rank %d", i+1)
				break
			}
		}
		why = base
	}
	return strings.Join(append([]string{why}, extra...), "; ")
}

// Result is one query's full ranking: every skill's breakdown (archived
// last, ties by id), the dynamic-K decision and what is emitted.
type Result struct {
	Ranked []Breakdown
	// K is how many skills are emitted, len(Emitted).
	K int
	// Reason names the branch that chose K.
	Reason   KReason
	Decision KDecision
	// Emitted are doc indices to inject, in order, after dynamic K, the
	// TopK cap and MMR.
	Emitted []int
	// Signals are what the abstention gate reads of this ranking; Gate is
	// the gate that decided (nil when none applied: the floors did).
	Signals Signals
	Gate    *Gate
	// Focus is the long prompt's sentences as the lexical channel weighed
	// them (nil: a short prompt, scored as it is).
	Focus Focus
	// Corrections are the prompt's words the catalog does not know, read
	// as catalog words one edit away.
	Corrections []Correction
	// Dropped are the skills K let through that MMR left out as saying
	// the same as one emitted (nil: none).
	Dropped []Dropped
	// Forced are the doc indices emitted only because Options.Force names
	// them (also in Emitted).
	Forced []int
	// pool is every candidate, as the decisions read them; full, when
	// only the head was ranked (Options.Head), ranks them all.
	pool *pool
	full func() []Breakdown
}

// Matched reports whether the prompt matches the skill doc in one of its
// channels, as a skill must to be emitted (a shared term, or the dense
// channel's cosine at denseFloor), and it is a candidate (neither
// archived, out nor denied), wherever it ranks.
func (res *Result) Matched(doc int, denseFloor float64) bool {
	if res.pool == nil {
		return false
	}
	return res.pool.matched(doc, denseFloor)
}

// ReasonForced is appended to the reason when Options.Force emitted a
// skill that the gate, dynamic K or the cap would have left out.
const ReasonForced KReason = "+force"

// Rank scores every skill against the query and decides what to emit.
func (ix *Index) Rank(text string, opt Options) Result {
	return ix.RankPrompt(ix.ReadWith(text, opt.Also), opt)
}

// RankPrompt is Rank of a prompt already read (ReadWith), for a caller
// that gives a dense channel the corrected text first; opt.Also is read
// by ReadWith, not here.
func (ix *Index) RankPrompt(p Prompt, opt Options) (res Result) {
	q := ix.parse(p)
	q.now = opt.Now
	n := len(ix.docs)
	raw := make([]float64, n)
	ix.lexical(q, raw)
	rk := ix.ranked(q, raw, opt.Dense, opt.Contexts, opt.Out, opt.Deny, opt.Held, opt.Head)
	res = Result{Ranked: rk.ranked, pool: rk.pool, full: rk.full, Corrections: p.Corrections, Focus: p.Focus}
	defer res.force(opt)

	// Candidates: the prefix of the ranking neither archived nor out.
	cands := candidates(res.Ranked)
	res.Signals = signalsSummed(q, cands, res.pool, rk.ds)
	scores := make([]float64, res.pool.size()) // dynamic K reads the head's (zWindow)
	for i, b := range cands {
		scores[i] = b.Final
	}
	anyRelevant := false
	res.pool.each(func(c cand) { anyRelevant = anyRelevant || c.rel > 0 })

	var k int
	var gate *Gate // the gate backups must pass, if any
	floor := 0.0   // without one, the floor they must reach
	switch {
	case q.empty && opt.Dense == nil:
		res.Reason = ReasonEmptyQuery
	case !anyRelevant:
		res.Reason = ReasonNoMatch
	case opt.NoDynamicK:
		k = opt.TopK
		if k <= 0 {
			k = DefaultTopK
		}
		res.Reason = ReasonFixed
	default:
		prof := ix.cfg.DynamicK
		if opt.Profile != nil {
			prof = *opt.Profile
		}
		res.Decision = prof.DecideGated(scores, res.Signals)
		res.Reason, k = res.Decision.Reason, res.Decision.K
		if res.Decision.GateProb != nil {
			gate = prof.Gate.For(res.Signals.Skills)
			res.Gate = gate
		} else {
			floor = prof.AbsFloor
		}
		if w, ok := ix.dominant(res.pool); ok && res.Reason != ReasonGate && (opt.Dense == nil || !res.Reason.IsGapCut()) {
			res.Reason = ReasonLexicalDominant
			res.Emitted = []int{w}
			res.K = 1
			return res
		}
	}

	// The first k matching skills are the window K allows. A backup in it
	// must be a confident match in its own right (the gate, else the
	// floor); one that is not is skipped, not the end of the list: a
	// prompt that needs two skills often ranks a near miss between them.
	// TopK caps what is emitted, not the window: a skipped backup leaves
	// room for the next one that passes.
	limit := k
	if opt.TopK > 0 {
		limit = min(k, opt.TopK)
	}
	var pick []int
	seen := 0
	for i := 0; i < len(cands); i++ {
		if seen == k || len(pick) == limit {
			break
		}
		if i+1 >= len(cands) && res.full != nil {
			// The window reaches past the head (a backup's gate reads
			// the one after it): rank them all.
			res.rankAll()
			cands = candidates(res.Ranked)
		}
		b := cands[i]
		if !candidate(b, opt.DenseFloor) {
			continue
		}
		seen++
		if len(pick) > 0 && (gate != nil && !gate.admits(res.Signals, cands, i, res.pool) || b.Final < floor) {
			continue
		}
		pick = append(pick, b.Doc)
	}
	if len(pick) == 0 && k > 0 {
		res.Reason = ReasonNoMatch // K allowed some, but no skill matches in any channel
	}
	final := make([]float64, n)
	for _, b := range res.Ranked {
		final[b.Doc] = b.Final
	}
	sim, mc := func(a, b int) float64 { return cosine(ix.docVec[a], ix.docVec[b]) }, ix.cfg.MMR
	byModel := opt.Similar != nil && opt.SimilarDup > 0
	if byModel {
		sim, mc.DupSim = opt.Similar, opt.SimilarDup
	}
	res.Emitted, res.Dropped = mmr(pick, func(d int) float64 { return final[d] }, sim, mc)
	for i := range res.Dropped {
		res.Dropped[i].ByModel = byModel
	}
	res.K = len(res.Emitted)
	return res
}

// force emits the skills Options.Force names that the prompt matches (as
// candidate says) and the ranking left out. TopK (DefaultTopK with a fixed
// K) still caps what is emitted: the forced skills are kept first, the
// others after them in their order, and all are emitted in ranking order.
func (res *Result) force(opt Options) {
	if len(opt.Force) == 0 {
		return
	}
	res.rankAll() // a forced skill may rank anywhere
	forced := func(d int) bool { return d < len(opt.Force) && opt.Force[d] }
	pos := make(map[int]int, len(res.Ranked))
	emitted := make(map[int]bool, len(res.Emitted))
	for _, d := range res.Emitted {
		emitted[d] = true
	}
	var add []int
	for i, b := range res.Ranked {
		pos[b.Doc] = i
		if forced(b.Doc) && !emitted[b.Doc] && !b.Excluded() && candidate(b, opt.DenseFloor) {
			add = append(add, b.Doc)
		}
	}
	if len(add) == 0 {
		return
	}
	limit := opt.TopK
	if opt.NoDynamicK && limit <= 0 {
		limit = DefaultTopK
	}
	var keep, rest []int
	for _, d := range res.Emitted {
		if forced(d) {
			keep = append(keep, d)
		} else {
			rest = append(rest, d)
		}
	}
	keep = append(keep, add...)
	keep = append(keep, rest...)
	if limit > 0 && len(keep) > limit {
		keep = keep[:limit]
	}
	slices.SortFunc(keep, func(a, b int) int { return cmp.Compare(pos[a], pos[b]) })
	res.Emitted, res.K, res.Forced = keep, len(keep), nil
	for _, d := range keep {
		if slices.Contains(add, d) {
			res.Forced = append(res.Forced, d)
			res.Ranked[pos[d]].Forced = true
		}
	}
	if len(res.Forced) > 0 {
		res.Reason += ReasonForced
	}
}

// ranking is what ranked returns: the ranking (all of it in order, or
// with a head asked for, its head), every candidate as the decisions read
// them, what ranks them all when only the head was (nil: it was), and the
// candidates' dense sums in doc order.
type ranking struct {
	ranked []Breakdown
	pool   *pool
	full   func() []Breakdown
	ds     denseSums
}

// candidates is the prefix of a ranking neither archived nor out.
func candidates(ranked []Breakdown) []Breakdown {
	for len(ranked) > 0 && ranked[len(ranked)-1].Excluded() {
		ranked = ranked[:len(ranked)-1]
	}
	return ranked
}

// ranked ranks every doc. With head <= 0, or a catalog too small for it
// to matter, it is every doc's breakdown in ranking order, in one array:
// it sorts doc numbers, not the large breakdowns themselves (far fewer
// bytes moved), then permutes the breakdowns into that order in place.
// With head > 0 only the best head candidates are picked (a bounded heap:
// a comparison or two per skill instead of a sort of thousands) and only
// theirs are kept as breakdowns; of the rest, the pool keeps the scores
// the decisions read. A second array of breakdowns, or one per skill the
// hook never reads, would be fresh memory, and every fresh page costs the
// short-lived hook process a page fault.
func (ix *Index) ranked(q query, raw, dense []float64, ctx *ContextScores, out, deny, held []bool, head int) ranking {
	n := len(ix.docs)
	keys := make([]rankKey, n)
	var denseVals []float64 // one backing array for the Dense pointers
	if dense != nil {
		denseVals = make([]float64, n)
	}
	fill := func(b *Breakdown, i int) {
		ix.breakdown(b, i, q, raw[i], dense, denseVals, ctx)
		b.Out = i < len(out) && out[i]
		b.Denied = i < len(deny) && deny[i]
		b.Held = i < len(held) && held[i]
	}
	var r ranking
	live := 0
	if head > 0 {
		head = max(head, zWindow+1) // dynamic K reads the top zWindow scores
		f := &pool{keys: keys, lex: make([]float64, n), raw: make([]float64, n), rel: make([]float64, n), dense: denseVals}
		var b Breakdown
		for i := range ix.docs {
			fill(&b, i)
			keys[i] = rankKey{final: b.Final, id: b.ID, doc: int32(i), archived: b.Excluded()}
			f.lex[i], f.raw[i], f.rel[i] = b.Lexical, b.LexicalRaw, b.Relevance
			if !b.Excluded() {
				live++
				if b.Dense != nil {
					r.ds.add(*b.Dense)
				}
			}
		}
		if live > 2*head {
			f.n = live
			r.pool = f
			r.ranked = make([]Breakdown, 0, head)
			for _, key := range topKeys(keys, head) {
				r.ranked = append(r.ranked, Breakdown{})
				fill(&r.ranked[len(r.ranked)-1], int(key.doc))
			}
			r.full = func() []Breakdown { return ix.ranked(q, raw, dense, ctx, out, deny, held, 0).ranked }
			return r
		}
		r.ds = denseSums{}
	}
	all := make([]Breakdown, n)
	for i := range ix.docs {
		b := &all[i]
		fill(b, i)
		keys[i] = rankKey{final: b.Final, id: b.ID, doc: int32(i), archived: b.Excluded()}
		if !b.Excluded() && b.Dense != nil {
			r.ds.add(*b.Dense)
		}
	}
	slices.SortFunc(keys, compareKeys)
	order := make([]int32, len(keys))
	for k, key := range keys {
		order[k] = key.doc
	}
	permute(all, order)
	r.ranked, r.pool = all, &pool{bs: candidates(all)}
	return r
}

// topKeys is the best n keys not excluded (archived set), in ranking
// order: a heap of the n best so far, its worst at the root.
func topKeys(keys []rankKey, n int) []rankKey {
	h := make([]rankKey, 0, n)
	worse := func(a, b int) bool { return compareKeys(h[a], h[b]) > 0 }
	down := func(i int) {
		for {
			w := i
			if l := 2*i + 1; l < len(h) && worse(l, w) {
				w = l
			}
			if r := 2*i + 2; r < len(h) && worse(r, w) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for _, key := range keys {
		switch {
		case key.archived:
		case len(h) < n:
			h = append(h, key)
			for i := len(h) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case compareKeys(key, h[0]) < 0:
			h[0] = key
			down(0)
		}
	}
	slices.SortFunc(h, compareKeys)
	return h
}

// rankAll ranks every skill, when only the head was (Options.Head): a
// decision that reads past the head, or a forced skill, needs them all.
func (res *Result) rankAll() {
	if res.full == nil {
		return
	}
	res.Ranked, res.full = res.full(), nil
	res.pool = &pool{bs: candidates(res.Ranked)}
}

// rankKey is what orders a breakdown (see less), gathered once per doc
// so sorting thousands of skills compares plain values.
type rankKey struct {
	final    float64
	id       string
	doc      int32
	archived bool
}

// compareKeys is less as a comparison: non-archived first, then final
// score descending, then id ascending, then doc order (as a stable sort
// would keep equal ids).
func compareKeys(a, b rankKey) int {
	if a.archived != b.archived {
		if !a.archived {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.final, a.final); c != 0 {
		return c
	}
	if c := strings.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.doc, b.doc)
}

// permute reorders bs in place so that bs[k] becomes the old bs[order[k]],
// following each cycle of the permutation with one spare breakdown. It
// uses up order: a done position is marked by order[k] = k.
func permute(bs []Breakdown, order []int32) {
	for k := range order {
		if int(order[k]) == k {
			continue
		}
		spare := bs[k]
		j := k
		for {
			src := int(order[j])
			order[j] = int32(j)
			if src == k {
				bs[j] = spare
				break
			}
			bs[j] = bs[src]
			j = src
		}
	}
}

// less orders breakdowns: non-archived first, then final score descending,
// then id ascending.
func less(a, b *Breakdown) bool {
	if a.Excluded() != b.Excluded() {
		return !a.Excluded()
	}
	if a.Final != b.Final {
		return a.Final > b.Final
	}
	return a.ID < b.ID
}

// breakdown computes every term of doc i's score for q into *b. With
// dense set, b.Dense points at denseVals[i].
func (ix *Index) breakdown(b *Breakdown, i int, q query, raw float64, dense, denseVals []float64, ctx *ContextScores) {
	d := &ix.docs[i]
	*b = Breakdown{
		Doc: i, ID: d.ID, LexicalRaw: raw,
		Helpful: d.HelpfulCount, Harmful: d.HarmfulCount,
		Weight: d.Weight, Status: d.Status,
	}
	if b.Weight <= 0 {
		b.Weight = 1 // unset trajectory weight: a cold start
	}
	if b.Status == "" {
		b.Status = StatusActive
	}
	if q.maxScore > 0 {
		b.Lexical = math.Min(1, raw/q.maxScore)
	}
	b.Relevance = b.Lexical
	if dense != nil {
		if i < len(dense) {
			denseVals[i] = dense[i]
		}
		v := denseVals[i]
		b.Dense = &denseVals[i]
		switch ix.cfg.Fusion.Mode {
		case FusionLinear:
			a := ix.cfg.Fusion.DenseWeight
			b.Relevance = (1-a)*b.Lexical + a*v
		case FusionMax:
			b.Relevance = math.Max(b.Lexical, v)
		}
	}
	if ix.cfg.Blend.Enabled && b.Status != StatusArchived && len(q.vec) > 0 {
		b.HelpCtxWords = maxCosine(q.vec, ix.help[i])
		b.HarmCtxWords = maxCosine(q.vec, ix.harm[i])
		b.HelpCtx, b.HarmCtx = b.HelpCtxWords, b.HarmCtxWords
		b.RelatedHelp = maxCosine(q.vec, ix.relHelp[i])
		b.RelatedHarm = maxCosine(q.vec, ix.relHarm[i])
	}
	if ix.cfg.Blend.Enabled && b.Status != StatusArchived && ctx != nil {
		// Only a skill with contexts of that kind can match one.
		if i < len(ctx.Help) && len(d.HelpfulContexts) > 0 {
			b.HelpCtxModel = ctx.Help[i]
			b.HelpCtx = max(b.HelpCtx, b.HelpCtxModel)
		}
		if i < len(ctx.Harm) && len(d.HarmfulContexts) > 0 {
			b.HarmCtxModel = ctx.Harm[i]
			b.HarmCtx = max(b.HarmCtx, b.HarmCtxModel)
		}
		if len(d.Learnt) > 0 && i < len(ctx.Learnt) {
			b.LearntCtx = ctx.Learnt[i]
		}
		if len(d.Related) > 0 {
			if i < len(ctx.RelHelp) {
				b.RelatedHelpModel = ctx.RelHelp[i]
				b.RelatedHelp = max(b.RelatedHelp, b.RelatedHelpModel)
			}
			if i < len(ctx.RelHarm) {
				b.RelatedHarmModel = ctx.RelHarm[i]
				b.RelatedHarm = max(b.RelatedHarm, b.RelatedHarmModel)
			}
		}
	}
	b.Silence = d.Silence
	if d.Updated > 0 && !q.now.IsZero() {
		b.AgeDays = max(0, int((q.now.Unix()-d.Updated)/86400))
	}
	b.Decay = ix.cfg.Blend.Decay(d.Updated, q.now)
	if b.LearntCtx > 0 {
		b.LearntDecay = ix.cfg.Blend.Decay(d.LearntUpdated, q.now)
	}
	ix.cfg.Blend.Apply(b)
}

// dominant is the lexical fast path: the non-archived skill with the highest
// raw BM25F score, if it reaches FastPath.Min and leads the runner-up by
// FastPath.Margin. Off when FastPath.Min <= 0.
func (ix *Index) dominant(f *pool) (int, bool) {
	fp := ix.cfg.FastPath
	if fp.Min <= 0 || f.size() == 0 {
		return 0, false
	}
	var first, second cand
	have := 0
	better := func(a, b cand) bool {
		if a.raw != b.raw {
			return a.raw > b.raw
		}
		return a.id < b.id
	}
	f.each(func(c cand) {
		switch {
		case have == 0 || better(c, first):
			first, second = c, first
			have++
		case have == 1 || better(c, second):
			second = c
			have = 2
		}
	})
	runner := 0.0
	if have > 1 {
		runner = second.raw
	}
	if first.raw >= fp.Min && first.raw-runner >= fp.Margin {
		return first.doc, true
	}
	return 0, false
}
