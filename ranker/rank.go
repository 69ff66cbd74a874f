package ranker

import (
	"cmp"
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
	// Head, when > 0, asks for the head of the ranking only: Result.Ranked
	// still holds every skill, but only its first Head (at least; more when
	// the decisions read further) are in ranking order, the rest follow
	// in doc order, those not excluded first. A caller that reads the
	// head (the prompt hook: what it emits, the top scores it logs) spares
	// sorting thousands of skills. 0: the whole ranking is in order.
	Head int
}

// ContextScores are per-skill similarities of a prompt to the skill's
// helpful and harmful contexts, in doc order (0: none, or no context).
type ContextScores struct {
	Help, Harm []float64
	// RelHelp and RelHarm are the same for the reasons of the skill's past
	// helpful and harmful verdicts (the related-verdict term).
	RelHelp, RelHarm []float64
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
	// Forced are the doc indices emitted only because Options.Force names
	// them (also in Emitted).
	Forced []int
	// sorted is how many of Ranked's first breakdowns are in ranking
	// order (Options.Head).
	sorted int
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
	ranked, sorted, ds := ix.ranked(q, raw, opt.Dense, opt.Contexts, opt.Out, opt.Deny, opt.Head)
	res = Result{Ranked: ranked, sorted: sorted, Corrections: p.Corrections, Focus: p.Focus}
	defer res.force(opt)

	// Candidates: the prefix of the ranking neither archived nor out.
	cands := res.Ranked
	for len(cands) > 0 && cands[len(cands)-1].Excluded() {
		cands = cands[:len(cands)-1]
	}
	res.Signals = signalsSummed(q, cands, ds)
	scores := make([]float64, len(cands))
	anyRelevant := false
	for i, b := range cands {
		scores[i] = b.Final
		anyRelevant = anyRelevant || b.Relevance > 0
	}

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
		if w, ok := ix.dominant(cands); ok && res.Reason != ReasonGate && (opt.Dense == nil || !res.Reason.IsGapCut()) {
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
	for i := range cands {
		if seen == k || len(pick) == limit {
			break
		}
		if i+1 >= res.sorted {
			res.sortRest() // the window reaches past the head (a backup's gate reads the one after it)
		}
		b := cands[i]
		if !candidate(b, opt.DenseFloor) {
			continue
		}
		seen++
		if len(pick) > 0 && (gate != nil && !gate.admits(res.Signals, cands, i) || b.Final < floor) {
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
	res.Emitted = mmr(pick,
		func(d int) float64 { return final[d] },
		func(a, b int) float64 { return cosine(ix.docVec[a], ix.docVec[b]) },
		ix.cfg.MMR)
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
	res.sortRest() // a forced skill may rank anywhere
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

// ranked is every doc's breakdown in ranking order, in one array: it
// sorts doc numbers, not the large breakdowns themselves (far fewer bytes
// moved), then permutes the breakdowns into that order in place. A second
// array of breakdowns would be fresh memory, and every fresh page costs the
// short-lived hook process a page fault. With head > 0 only the best head
// skills not excluded are picked and sorted (a bounded heap: a comparison
// or two per skill instead of a sort of thousands); the rest follow in
// doc order, those not excluded first. sorted is how many lead in order;
// ds sums the dense scores of the skills not excluded, in doc order.
func (ix *Index) ranked(q query, raw, dense []float64, ctx *ContextScores, out, deny []bool, head int) (all []Breakdown, sorted int, ds denseSums) {
	all = make([]Breakdown, len(ix.docs))
	keys := make([]rankKey, len(ix.docs))
	var denseVals []float64 // one backing array for the Dense pointers
	if dense != nil {
		denseVals = make([]float64, len(ix.docs))
	}
	if head > 0 {
		head = max(head, zWindow+1) // dynamic K reads the top zWindow scores
	}
	live := 0
	for i := range ix.docs {
		b := &all[i]
		ix.breakdown(b, i, q, raw[i], dense, denseVals, ctx)
		b.Out = i < len(out) && out[i]
		b.Denied = i < len(deny) && deny[i]
		keys[i] = rankKey{final: b.Final, id: b.ID, doc: int32(i), archived: b.Excluded()}
		if !b.Excluded() {
			live++
			if b.Dense != nil {
				ds.add(*b.Dense)
			}
		}
	}
	if head <= 0 || live <= 2*head {
		slices.SortFunc(keys, compareKeys)
		order := make([]int32, len(keys))
		for k, key := range keys {
			order[k] = key.doc
		}
		permute(all, order)
		return all, len(all), ds
	}
	best := topKeys(keys, head)
	order := make([]int32, 0, len(keys))
	inHead := make([]bool, len(keys))
	for _, key := range best {
		order = append(order, key.doc)
		inHead[key.doc] = true
	}
	for _, excluded := range []bool{false, true} {
		for i, key := range keys {
			if key.archived == excluded && !inHead[i] {
				order = append(order, key.doc)
			}
		}
	}
	permute(all, order)
	return all, len(best), ds
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

// sortRest puts the whole ranking in order, when only its head was
// (Options.Head): the head holds the best skills, so sorting what follows
// it gives the order a full sort would.
func (res *Result) sortRest() {
	if res.sorted >= len(res.Ranked) {
		return
	}
	rest := res.Ranked[res.sorted:]
	keys := make([]rankKey, len(rest))
	for i := range rest {
		keys[i] = rankKey{final: rest[i].Final, id: rest[i].ID, doc: int32(i), archived: rest[i].Excluded()}
	}
	slices.SortFunc(keys, compareKeys)
	order := make([]int32, len(keys))
	for k, key := range keys {
		order[k] = key.doc
	}
	permute(rest, order)
	res.sorted = len(res.Ranked)
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
	ix.cfg.Blend.Apply(b)
}

// dominant is the lexical fast path: the non-archived skill with the highest
// raw BM25F score, if it reaches FastPath.Min and leads the runner-up by
// FastPath.Margin. Off when FastPath.Min <= 0.
func (ix *Index) dominant(cands []Breakdown) (int, bool) {
	fp := ix.cfg.FastPath
	if fp.Min <= 0 || len(cands) == 0 {
		return 0, false
	}
	first, second := -1, -1
	better := func(a, b int) bool {
		if cands[a].LexicalRaw != cands[b].LexicalRaw {
			return cands[a].LexicalRaw > cands[b].LexicalRaw
		}
		return cands[a].ID < cands[b].ID
	}
	for i := range cands {
		switch {
		case first < 0 || better(i, first):
			first, second = i, first
		case second < 0 || better(i, second):
			second = i
		}
	}
	top := cands[first].LexicalRaw
	runner := 0.0
	if second >= 0 {
		runner = cands[second].LexicalRaw
	}
	if top >= fp.Min && top-runner >= fp.Margin {
		return cands[first].Doc, true
	}
	return 0, false
}
