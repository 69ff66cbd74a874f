// Package route routes prompts against one registry's skills: the router
// the route, why, eval and serve commands and the prompt hook share, and
// the dense channel's interface. The compiled index it routes from is
// package index; the `megagit serve` protocol is package serve, the
// server package server. It imports neither git nor the config reader,
// so the small megagit-hook binary can link it and start quickly; for
// the same reason the dense channel is an interface here (package dense
// implements it).
package route

import (
	"errors"
	"strings"
	"time"

	"github.com/megagit/megagit/models/staticmodel"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route/english"
)

// Router routes prompts against one loaded set of skills; route, why, eval
// and the prompt hook all go through it so they decide identically.
type Router struct {
	Index *ranker.Index
	Docs  []ranker.Doc
	Sem   Dense            // nil: lexical only
	prof  *ranker.DynamicK // with the dense channel
	lex   *ranker.DynamicK // lexical only; nil: the index's own
}

// Settings are the per-call output choices.
type Settings struct {
	TopK      int
	NoDynamic bool
	Format    string
	Budget    int
	// Where is where the prompt is asked, for the skills limited by
	// paths (nil: those skills are out).
	Where *Where `json:",omitempty"`
	// Deny and Force are the configuration's deny: and force: lists
	// (names or globs, MatchName): the skills never emitted, and those
	// emitted whenever the prompt matches them (ranker.Options.Force).
	Deny  []string `json:",omitempty"`
	Force []string `json:",omitempty"`
	// Allow is the config's audit.allow (SKILL:RULE entries, Allowed):
	// a skill with a Doc.Held rule none of them allows is held back.
	Allow []string `json:",omitempty"`
}

// Result is one routed prompt, rendered.
type Result struct {
	Res      ranker.Result
	Rendered ranker.Rendered
	// Candidates counts the skills ranked and not archived (Res.Ranked of
	// an answer from `megagit serve` holds only the head of the ranking).
	Candidates int
	Served     bool // answered by `megagit serve`
	// Fallback names the channel that ranked in place of the configured
	// model, whose server did not answer (the built-in model's id, or
	// "lexical"); "" when the configured model ranked.
	Fallback string
}

// Dense is a semantic model's channel (package dense): the dense
// relevance of every doc to a prompt, and the model's routing profile.
type Dense interface {
	Scores(prompt string) ([]float64, error)
	DenseProfile() DenseProfile
}

// ContextDense is a Dense that also scores a prompt against each skill's
// helpful and harmful contexts (the prompts of past sessions), with the
// prompt embedded once.
type ContextDense interface {
	Dense
	ScoresWithContexts(prompt string) ([]float64, *ranker.ContextScores, error)
}

// SimilarDense is a Dense that says how alike two skills are from their
// stored vectors (Vectors.Cosine), and at which cosine two are the same
// skill (DenseProfile.DupCos, 0: not measured): MMR at injection time
// compares skills with it rather than by their words.
type SimilarDense interface {
	Dense
	Similar() (cos func(a, b int) float64, dup float64)
}

// DenseProfile is what routing takes from a model's profile: the weight
// of the dense channel in the fused score, its abstention floor (a
// cosine) and its dynamic-K tier.
type DenseProfile struct {
	FusionW, AbsFloor float64
	Tier              string
	// DupCos is the model's cosine of two skills that say the same thing,
	// for the prompt hook (models.Profile.InjectDupCosine): MMR drops the
	// second of two such skills (ranker.Options.SimilarDup). 0: not
	// measured, and MMR compares the skills' words.
	DupCos float64 `json:",omitempty"`
	// Gate is the model's shipped abstention gate (ShippedGate); nil
	// abstains by AbsFloor.
	Gate *ranker.Gate `json:",omitempty"`
}

// DynamicKOverride is what the config's dynamic_k section overrides of a
// semantic model's profile: its tier (K bounds) and abstention floor.
type DynamicKOverride struct {
	Tier     string
	AbsFloor float64
	// Gate replaces the shipped abstention gate (a gate fitted by `megagit
	// eval --fit`); NoGate turns gates off: the profiles' floors decide.
	Gate   *ranker.Gate `json:",omitempty"`
	NoGate bool         `json:",omitempty"`
}

// New indexes docs; with a semantic channel the model's profile sets the
// fusion weight and the dynamic-K floor and tier, unless the config
// overrode them (dk). With snap (a snapshot of an index of the same docs)
// the index is restored instead of analysing every doc again; restored is
// false when snap is nil or does not fit and the index was built.
func New(docs []ranker.Doc, cfg ranker.Config, sem Dense, dk DynamicKOverride, snap *ranker.Snapshot) (r *Router, restored bool) {
	r = &Router{Docs: docs, Sem: sem}
	if sem != nil {
		prof := sem.DenseProfile()
		w := prof.FusionW
		cfg.Fusion = ranker.Fusion{Mode: ranker.FusionLinear, DenseWeight: w}
		p := cfg.DynamicK // the lexical profile with the config's overrides
		if dk.Tier == "" && prof.Tier != "" {
			t := ranker.ProfileFor(prof.Tier)
			p.KMin, p.KMax, p.KAmbig, p.KVeryAmbig = t.KMin, t.KMax, t.KAmbig, t.KVeryAmbig
		}
		// Abstention uses both channels: each has a floor on its own scale
		// (share of the attainable BM25F score, cosine), and the fused
		// score's floor is their mix with the fusion weights. A gate
		// replaces the floor where it applies (ranker.DynamicK.Gate).
		p.AbsFloor = (1-w)*cfg.DynamicK.AbsFloor + w*prof.AbsFloor
		p.Gate = dk.gate(prof.Gate)
		if dk.AbsFloor > 0 {
			p.AbsFloor = dk.AbsFloor
		}
		r.prof = &p
	}
	lexGate := dk.gate(ShippedGate(LexicalGate))
	if sem != nil && !dk.NoGate {
		lexGate = ShippedGate(LexicalGate) // a fitted gate is the dense channel's
	}
	if g := lexGate; g != nil {
		p := cfg.DynamicK
		p.Gate = g
		r.lex = &p
	}
	if snap != nil {
		if ix, err := ranker.NewIndexFromSnapshot(docs, cfg, snap); err == nil {
			r.Index = ix
			ix.SetDictionary(englishWord)
			return r, true
		}
	}
	r.Index = ranker.NewIndex(docs, cfg)
	r.Index.SetDictionary(englishWord)
	return r, false
}

// englishWord reports whether w, or w without a plural or verb ending,
// is a whole word of the built-in tokeniser's vocabulary (BERT uncased:
// 30,522 entries, most of them English words and names) or of the English
// word list (package english: 60,000 words of five letters or more): the
// dictionary that keeps a real word a catalog lacks from being read as a
// typo ("tourist" is not "tourism", "stash" not "slash", "unset" not
// "sunset"). The vocabulary is opened on the first unknown word, not
// before: a prompt of words the catalog knows never pays for it.
func englishWord(w string) bool {
	t, err := staticmodel.DefaultTokenizer()
	if err != nil {
		return false
	}
	v := t.Vocab()
	if _, ok := v.ID(w); ok || english.Has(w) {
		return true
	}
	for _, end := range inflections {
		if base, ok := strings.CutSuffix(w, end); ok && len(base) >= 3 {
			if _, ok := v.ID(base); ok || english.Has(base) {
				return true
			}
		}
	}
	return false
}

// inflections are the endings englishWord takes off: the vocabulary holds
// most words in one form only.
var inflections = []string{"s", "es", "ed", "d", "ing", "er", "ers", "ly"}

// gate is the gate to route with: the config's fitted one, else shipped
// (nil: none, or gates turned off).
func (dk DynamicKOverride) gate(shipped *ranker.Gate) *ranker.Gate {
	switch {
	case dk.NoGate:
		return nil
	case dk.Gate != nil:
		return dk.Gate
	}
	return shipped
}

// Rank scores every skill and decides K. The dense channel embeds the
// prompt with its typos corrected (ranker.Prompt.Corrected): a model's
// word pieces go astray on a misspelt word as the lexical terms do.
func (r *Router) Rank(prompt string, s Settings) ranker.Result {
	return r.rank(prompt, "", s)
}

// rank is Rank with words that join the query after the prompt (the
// project's name), at full weight: a long prompt's sentences are weighed
// (ranker.FocusOf) before they join, so they never become its last
// sentence. The dense channel embeds DenseText: the request of a long
// prompt, with its typos corrected.
func (r *Router) rank(prompt, also string, s Settings) ranker.Result {
	p := r.Index.ReadWith(prompt, also)
	return r.rankRead(p, r.scoreDense([]string{DenseText(p)})[0], s, 0)
}

// denseScores are one prompt's scores in the dense channel: its scores
// and its contexts' (nil: lexical routing), or why there are none.
type denseScores struct {
	scores []float64
	ctx    *ranker.ContextScores
	err    error
}

// scoreDense scores each text in the dense channel (none without one),
// in one pass over the vectors when the channel can (manyDense).
func (r *Router) scoreDense(texts []string) []denseScores {
	out := make([]denseScores, len(texts))
	switch sem := r.Sem.(type) {
	case nil:
		for i := range out {
			out[i].err = errNoDense
		}
	case manyDense:
		return sem.scoresMany(texts)
	case ContextDense:
		for i, t := range texts {
			out[i].scores, out[i].ctx, out[i].err = sem.ScoresWithContexts(t)
		}
	default:
		for i, t := range texts {
			out[i].scores, out[i].err = sem.Scores(t)
		}
	}
	return out
}

var errNoDense = errors.New("no dense channel")

// manyDense is a dense channel that scores several prompts in one pass
// over its vectors (Semantic): the prompt hook ranks a prompt with and
// without the project's name.
type manyDense interface {
	scoresMany(texts []string) []denseScores
	// onePass says whether the vectors are too large for the processor's
	// cache: then reading them twice costs more than scoring the prompt
	// with the project's name for nothing when the prompt's own ranking
	// emits nothing (most prompts a catalog has no skill for).
	onePass() bool
}

// rankRead ranks a prompt already read, with its dense scores; head > 0
// asks for the head of the ranking only (ranker.Options.Head).
func (r *Router) rankRead(p ranker.Prompt, d denseScores, s Settings, head int) ranker.Result {
	opt := ranker.Options{TopK: s.TopK, NoDynamicK: s.NoDynamic, Profile: r.lex, Now: time.Now(), Out: Out(r.Docs, s.Where),
		Deny: nameMask(r.Docs, s.Deny), Force: nameMask(r.Docs, s.Force), Held: HeldMask(r.Docs, s.Allow), Head: head}
	if r.Sem != nil && d.err == nil {
		// Else a lexical fallback for this prompt.
		opt.Dense, opt.Contexts, opt.DenseFloor, opt.Profile = d.scores, d.ctx, r.Sem.DenseProfile().AbsFloor, r.prof
		if sd, ok := r.Sem.(SimilarDense); ok {
			opt.Similar, opt.SimilarDup = sd.Similar()
		}
	}
	return r.Index.RankPrompt(p, opt)
}

// DenseText is the text of a prompt the dense channel embeds: the prompt
// with its typos corrected; of a long prompt, its request sentences only
// (the mean over a story's words is the story's subject).
func DenseText(p ranker.Prompt) string {
	p.Text = p.Request()
	return p.Corrected()
}

// Route ranks and renders what would be injected, within the budget.
func (r *Router) Route(prompt string, s Settings) Result {
	return r.result(r.rank(prompt, "", s), s)
}

// result renders a ranking.
func (r *Router) result(res ranker.Result, s Settings) Result {
	out := Render(r.Docs, res.Emitted, s)
	return Result{Res: res, Rendered: out, Candidates: res.Signals.Skills}
}

// RankHead is how much of its rankings RouteWithProject keeps in order:
// what a served answer carries (route/serve), more than the prompt hook
// reads (what it emits, the top 20 scores it logs).
const RankHead = 32

// RouteWithProject routes a prompt the way the prompt hook does: the
// project's name joins the query, as plain words, because a prompt in
// "payments-api" that says "the webhook fails" is about that project's
// webhooks. It may reorder and
// pick among the skills the prompt itself matches, never add one the prompt
// does not match, nor turn "nothing" into something: measured on
// examples/demo, a project called "release-notes-bot" made a pytest prompt
// pull release-notes and python-packaging otherwise.
//
// Only the head of each ranking is ranked (ranker.Options.Head):
// Result.Res.Ranked holds as much of it as the prompt hook, MCP and a
// served answer read. The ranking with the project's name is made only
// when the prompt's own emits something. When the skills' vectors do not
// fit in the processor's cache (thousands of skills), the prompt is
// scored in the dense channel with and without the project's name in one
// pass over them, reading them once; below that, scoring it with the
// project's name only when needed measured cheaper.
func (r *Router) RouteWithProject(prompt, project string, s Settings) Result {
	p := r.Index.ReadWith(prompt, "")
	texts := []string{DenseText(p)}
	var pw ranker.Prompt
	md, fuse := r.Sem.(manyDense)
	if fuse = fuse && project != "" && md.onePass(); fuse {
		pw = r.Index.ReadWith(prompt, project)
		texts = append(texts, DenseText(pw))
	}
	dense := r.scoreDense(texts)
	rr := r.result(r.rankRead(p, dense[0], s, RankHead), s)
	if project == "" || rr.Res.K == 0 {
		return rr
	}
	if !fuse {
		pw = r.Index.ReadWith(prompt, project)
		dense = append(dense, r.scoreDense([]string{DenseText(pw)})...)
	}
	with := r.result(r.rankRead(pw, dense[1], s, RankHead), s)
	if with.Res.K > 0 {
		rr = r.projectFiltered(rr, with, s)
	}
	return rr
}

// denseFloor is the dense channel's cosine floor (0: none, or lexical).
func (r *Router) denseFloor() float64 {
	if r.Sem == nil {
		return 0
	}
	return r.Sem.DenseProfile().AbsFloor
}

// projectFiltered keeps, from the ranking with the project words, only
// the emitted skills the prompt alone matches in a channel (a term it
// shares with the skill, or the model's cosine at its floor: what any
// emitted skill needs), so the project's name reorders what the prompt
// asks for and never adds a skill the prompt does not speak of; what it
// keeps is rendered anew. If none is left the prompt's own ranking stands.
func (r *Router) projectFiltered(plain, with Result, s Settings) Result {
	var keep []int
	for _, d := range with.Res.Emitted {
		if plain.Res.Matched(d, r.denseFloor()) {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return plain
	}
	if len(keep) < len(with.Res.Emitted) {
		with.Res.Emitted, with.Res.K = keep, len(keep)
		with.Rendered = Render(r.Docs, keep, s)
	}
	return with
}

// Render renders the given docs in the configured format and budget.
func Render(docs []ranker.Doc, ids []int, s Settings) ranker.Rendered {
	if len(ids) == 0 {
		return ranker.Rendered{}
	}
	if s.Format == "compose" {
		return ranker.RenderCompose(docs, ids, s.Budget)
	}
	return ranker.RenderCatalog(docs, ids, s.Budget)
}
