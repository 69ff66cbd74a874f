// Package dense is routing's dense channel: a semantic model's vectors
// of every skill, read from the embedding caches, scoring prompts by
// cosine. It also decides which model a registry routes with (model.id or
// model.dir, their profiles, `model use` and `model list`), since that
// choice is what the channel loads. It is apart from package route, which
// takes it as a route.Dense, so the megagit-hook binary links no model code.
package dense

import (
	"errors"
	"fmt"
	"strings"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
)

// Channel is the dense channel: an embedder, each skill's vectors and the
// model's profile.
type Channel struct {
	Emb  models.Embedder
	Prof models.Profile
	Vecs *index.Vectors // two rows per doc, see index.Vectors
}

// ErrNoVectors: a model too slow to embed the registry on the fly (ONNX)
// has no cached vector yet, so routing stays lexical until `megagit embed`.
var ErrNoVectors = errors.New("no vectors yet")

// DocTexts are the two texts embedded per skill: a skill's semantic score
// is max(cos(q, full_doc), cos(q, name)), so a short prompt that only
// names the skill's subject still finds it through the name.
func DocTexts(d ranker.Doc) (full, name string) {
	name = strings.ReplaceAll(d.ID, "-", " ")
	return name + ": " + d.Description, name
}

// Fields of the texts embedded per skill besides "full" and "name": each
// helpful and each harmful context (a past session's prompt).
const (
	FieldHelp = "help"
	FieldHarm = "harm"
	// FieldReasonHelp and FieldReasonHarm are the reasons of its last
	// ReasonsEmbedded helpful and harmful verdicts.
	FieldReasonHelp = "reason-help"
	FieldReasonHarm = "reason-harm"
	// FieldLearnt is a prompt learnt from the agents' history (Doc.Learnt).
	FieldLearnt = "learnt"
)

// ReasonsEmbedded is how many of a skill's latest verdict reasons of each
// kind the model embeds: as many as the contexts kept
// (lifecycle.ContextCap), so a long ledger costs no more than a short one.
const ReasonsEmbedded = 3

// LearntEmbedded is how many of a skill's learnt prompts (the newest:
// ranker.Doc.Learnt is newest first) the model embeds, as many as the
// verdict reasons: the word channel reads them all, and a skill learnt
// from hundreds of sessions costs the prompt hook no more than one learnt
// from three.
const LearntEmbedded = ReasonsEmbedded

// EmbedItems are the texts routing embeds per skill, keyed as New
// keys them, so routing finds every vector `megagit embed` committed: the
// two of DocTexts, then the skill's helpful and harmful contexts, each
// numbered within its field (DocText.N) so each keeps its own row.
func EmbedItems(docs []ranker.Doc) []embedcache.DocText {
	items := make([]embedcache.DocText, 0, 2*len(docs))
	for _, d := range docs {
		full, name := DocTexts(d)
		items = append(items, embedcache.DocText{Skill: d.ID, Field: "full", Text: full}, embedcache.DocText{Skill: d.ID, Field: "name", Text: name})
		for i, c := range d.HelpfulContexts {
			items = append(items, embedcache.DocText{Skill: d.ID, Field: FieldHelp, N: i, Text: c})
		}
		for i, c := range d.HarmfulContexts {
			items = append(items, embedcache.DocText{Skill: d.ID, Field: FieldHarm, N: i, Text: c})
		}
		for i, c := range d.Learnt[:min(len(d.Learnt), LearntEmbedded)] {
			items = append(items, embedcache.DocText{Skill: d.ID, Field: FieldLearnt, N: i, Text: c})
		}
		items = append(items, reasonItems(d)...)
	}
	return items
}

// reasonItems are the reasons of d's last ReasonsEmbedded helpful and
// harmful verdicts (d.Related is in ledger order), oldest first.
func reasonItems(d ranker.Doc) []embedcache.DocText {
	var help, harm []embedcache.DocText
	for _, r := range d.Related {
		if r.Text == "" {
			continue
		}
		if r.Helpful {
			help = append(help, embedcache.DocText{Skill: d.ID, Field: FieldReasonHelp, Text: r.Text})
		} else {
			harm = append(harm, embedcache.DocText{Skill: d.ID, Field: FieldReasonHarm, Text: r.Text})
		}
	}
	help = help[max(0, len(help)-ReasonsEmbedded):]
	harm = harm[max(0, len(harm)-ReasonsEmbedded):]
	for i := range help {
		help[i].N = i
	}
	for i := range harm {
		harm[i].N = i
	}
	return append(help, harm...)
}

// New embeds every doc, reading and filling the caches in dirs
// (first = committed cache, read only; last = local cache, written). Only
// a static model (cheap) embeds a registry no cache knows: a slower model
// fails with ErrNoVectors until `megagit embed` has run.
func New(emb models.Embedder, prof models.Profile, docs []ranker.Doc, cacheDirs []string, warn func(string)) (*Channel, error) {
	items := EmbedItems(docs)
	vecs, err := CachedVectors(emb, items, cacheDirs, warn, prof.Kind == "static")
	if err != nil {
		return nil, err
	}
	v := &index.Vectors{Key: embedcache.CacheKey(emb), Dim: emb.Dim(), Rows: make([]float32, 0, 2*len(docs)*emb.Dim())}
	doc := -1
	for k, row := range vecs {
		if len(row) != v.Dim {
			return nil, fmt.Errorf("%s: a vector of %d values, want %d", emb.ID(), len(row), v.Dim)
		}
		switch items[k].Field {
		case FieldHelp, FieldHarm, FieldReasonHelp, FieldReasonHarm, FieldLearnt:
			f := items[k].Field
			v.Ctx = append(v.Ctx, index.CtxRow{Doc: int32(doc), Harm: f == FieldHarm || f == FieldReasonHarm,
				Reason: f == FieldReasonHelp || f == FieldReasonHarm, Learnt: f == FieldLearnt})
			v.CtxRows = append(v.CtxRows, row...)
		case "full":
			doc++
			v.Rows = append(v.Rows, row...)
		default:
			v.Rows = append(v.Rows, row...)
		}
	}
	return &Channel{Emb: emb, Prof: prof, Vecs: v}, nil
}

// CachedVectors takes vectors from the read-only caches when present and
// computes the rest through the writable (last) cache, saving it. Unless
// cheap, it computes nothing when no cache holds a vector of the model
// (ErrNoVectors): embedding a whole registry is `megagit embed`'s job.
func CachedVectors(emb models.Embedder, items []embedcache.DocText, dirs []string, warn func(string), cheap bool) ([][]float32, error) {
	if warn == nil {
		warn = func(string) {}
	}
	if len(dirs) == 0 {
		texts := make([]string, len(items))
		for i, it := range items {
			texts[i] = it.Text
		}
		return emb.Embed(texts, models.Document)
	}
	out := make([][]float32, len(items))
	var missing []int
	held := 0 // rows of this model in any cache
	drift := DriftCheck(emb, warn)
	for _, dir := range dirs[:len(dirs)-1] {
		c := embedcache.OpenCache(dir, embedcache.CacheKey(emb), emb.Dim(), warn)
		if drift(dir, c) {
			continue
		}
		held += c.Len() - AnchorRows(c)
		for i, it := range items {
			if out[i] == nil {
				out[i], _ = c.View(embedcache.TextSHA(it.Text)) // read only: scored, never changed
			}
		}
	}
	var rest []embedcache.DocText
	for i, it := range items {
		if out[i] == nil {
			missing = append(missing, i)
			rest = append(rest, it)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	local := embedcache.OpenCache(dirs[len(dirs)-1], embedcache.CacheKey(emb), emb.Dim(), warn)
	if drift(dirs[len(dirs)-1], local) {
		local.Retain(func(string, string, string) bool { return false }) // rebuilt below
	}
	if !cheap && held+local.Len()-AnchorRows(local) == 0 {
		return nil, ErrNoVectors
	}
	vecs, err := embedcache.EmbedDocs(emb, local, rest)
	if err != nil {
		return nil, err
	}
	for j, i := range missing {
		out[i] = vecs[j]
	}
	if local.Dirty() {
		if err := local.Save(false); err != nil {
			warn(fmt.Sprintf("could not save the local embedding cache: %v", err))
		}
	}
	return out, nil
}

// AnchorRows is 1 when c holds a drift anchor row, which is no skill's.
func AnchorRows(c *embedcache.Cache) int {
	if _, ok := c.Anchor(); ok {
		return 1
	}
	return 0
}

// DriftCheck returns a test of a cache's drift anchor against emb: true, with a warning, when the cache's rows were written by
// a different model under the same key and must not be scored. The anchor
// is embedded at most once per process, and only for a cache that has one.
func DriftCheck(emb models.Embedder, warn func(string)) func(dir string, c *embedcache.Cache) bool {
	var fresh []float32
	return func(dir string, c *embedcache.Cache) bool {
		stored, ok := c.Anchor()
		if !ok {
			return false
		}
		if fresh == nil {
			v, err := embedcache.EmbedAnchor(emb)
			if err != nil {
				return false
			}
			fresh = v
		}
		if cos := embedcache.Cosine(stored, fresh); cos < embedcache.DriftThreshold {
			warn(fmt.Sprintf("%s was written by a different %s (drift anchor cosine %.2f < %.2f): ignoring it; run `megagit embed --all`",
				dir, emb.ID(), cos, embedcache.DriftThreshold))
			return true
		}
		return false
	}
}

// DenseProfile implements route.Dense.
func (s *Channel) DenseProfile() route.DenseProfile { return RouteProfile(s.Prof) }

// RouteProfile is what routing takes from a model's profile: with the
// built-in model's, or a known ONNX model's, the abstention gate megagit
// ships for it, if any (an unknown folder's profile, which takes its id
// from the folder's name, never gets one).
func RouteProfile(p models.Profile) route.DenseProfile {
	rp := route.DenseProfile{FusionW: p.FusionW, AbsFloor: p.AbsFloor, Tier: p.Tier, DupCos: p.InjectDupCosine}
	if _, known := onnxProfile(p.ID); p.Builtin || (known && p.Kind == "onnx") {
		rp.Gate = route.ShippedGate(p.ID)
	}
	return rp
}

// Semantic is the channel as routing scores it: the same vectors and
// profile, the prompt embedded by the model's query side.
func (s *Channel) Semantic() *route.Semantic {
	return &route.Semantic{Model: s.Emb.ID(), Vecs: s.Vecs, Prof: s.DenseProfile(), Embed: QueryEmbedder(s.Emb)}
}

// QueryEmbedder embeds one prompt with emb's query side.
func QueryEmbedder(emb models.Embedder) func(string) ([]float32, error) {
	return func(text string) ([]float32, error) {
		v, err := emb.Embed([]string{text}, models.Query)
		if err != nil {
			return nil, err
		}
		return v[0], nil
	}
}

// Similar implements route.SimilarDense.
func (s *Channel) Similar() (func(a, b int) float64, float64) { return s.Semantic().Similar() }

// Scores is the per-doc dense relevance for a prompt, in doc order.
func (s *Channel) Scores(prompt string) ([]float64, error) { return s.Semantic().Scores(prompt) }

// ScoresWithContexts implements route.ContextDense.
func (s *Channel) ScoresWithContexts(prompt string) ([]float64, *ranker.ContextScores, error) {
	return s.Semantic().ScoresWithContexts(prompt)
}

// Parts returns the two cosines behind one doc's semantic score.
func (s *Channel) Parts(prompt string, doc int) (full, name float64, err error) {
	return s.Semantic().Parts(prompt, doc)
}
