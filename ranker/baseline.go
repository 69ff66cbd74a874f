package ranker

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// BaselineText chooses which skill text the plain BM25 reference indexes,
// to match the text a published BM25 figure was computed on.
type BaselineText string

// Baseline texts: a skill's name and description (what a host lists, and
// the default), or those and its body.
const (
	BaselineNameDescription     BaselineText = "name+description"
	BaselineNameDescriptionBody BaselineText = "name+description+body"
)

// ParseBaselineText checks a user-supplied baseline text name.
func ParseBaselineText(s string) (BaselineText, error) {
	switch t := BaselineText(s); t {
	case BaselineNameDescription, BaselineNameDescriptionBody:
		return t, nil
	}
	return "", fmt.Errorf("baseline text %q: want %s or %s", s, BaselineNameDescription, BaselineNameDescriptionBody)
}

// BaselineTopK is how many skills the plain BM25 reference always emits.
const BaselineTopK = 5

// Plain BM25's usual parameters, so the reference is the BM25 other
// routing methods report.
const (
	baselineK1 = 1.2
	baselineB  = 0.75
)

var baselineTokRE = regexp.MustCompile(`[a-z0-9]+`)

// baselineTokens is the reference's tokeniser: lowercase [a-z0-9]+ runs, no
// stemming, no stopwords (none of megagit's own text handling).
func baselineTokens(text string) []string {
	return baselineTokRE.FindAllString(strings.ToLower(text), -1)
}

// basePosting is one doc's raw term frequency for a term.
type basePosting struct {
	doc int
	tf  float64
}

// Baseline is a plain BM25 reference (k1 1.2, b 0.75,
// idf ln(1 + (N - df + 0.5)/(df + 0.5)), ties by id) without megagit's
// fields, weights, stemming or evidence, so `megagit eval` can put megagit
// beside the figure other routing methods usually report as BM25, from
// the same run.
type Baseline struct {
	docs     []Doc
	postings map[string][]basePosting
	// norm is each doc's k1*(1 - b + b*dl/avgdl).
	norm []float64
	idf  map[string]float64
}

// NewBaseline indexes docs' ID, Description and, for
// BaselineNameDescriptionBody, Body.
func NewBaseline(docs []Doc, text BaselineText) *Baseline {
	p := &Baseline{docs: docs, postings: map[string][]basePosting{}, norm: make([]float64, len(docs)), idf: map[string]float64{}}
	dl := make([]float64, len(docs))
	var sum float64
	for i, d := range docs {
		s := d.ID + " " + d.Description
		if text == BaselineNameDescriptionBody {
			s += " " + d.Body
		}
		toks := baselineTokens(s)
		tf := map[string]int{}
		for _, w := range toks {
			tf[w]++
		}
		terms := make([]string, 0, len(tf))
		for w := range tf {
			terms = append(terms, w)
		}
		sort.Strings(terms)
		for _, w := range terms {
			p.postings[w] = append(p.postings[w], basePosting{doc: i, tf: float64(tf[w])})
		}
		dl[i] = float64(len(toks))
		sum += dl[i]
	}
	avg := 1.0
	if len(docs) > 0 && sum > 0 {
		avg = sum / float64(len(docs))
	}
	for i := range docs {
		p.norm[i] = baselineK1 * (1 - baselineB + baselineB*dl[i]/avg)
	}
	n := float64(len(docs))
	for w, ps := range p.postings {
		df := float64(len(ps))
		p.idf[w] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	return p
}

// Rank returns every doc index by decreasing BM25, ties by id, with the
// matching scores. A query term counts once per occurrence, as a plain sum
// over query tokens does.
func (p *Baseline) Rank(query string) (order []int, scores []float64) {
	score := make([]float64, len(p.docs))
	for _, w := range baselineTokens(query) {
		idf := p.idf[w]
		for _, ps := range p.postings[w] {
			score[ps.doc] += idf * ps.tf * (baselineK1 + 1) / (ps.tf + p.norm[ps.doc])
		}
	}
	order = make([]int, len(p.docs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if score[x] != score[y] {
			return score[x] > score[y]
		}
		return p.docs[x].ID < p.docs[y].ID
	})
	scores = make([]float64, len(order))
	for i, d := range order {
		scores[i] = score[d]
	}
	return order, scores
}

// Emit is what the reference injects: its top BaselineTopK, always, so its
// null coverage is 0. With dynamic, the default dynamic K (z-only
// abstain, no floor) picks K from the raw BM25 scores instead.
func (p *Baseline) Emit(order []int, scores []float64, dynamic bool) ([]int, KDecision) {
	k := BaselineTopK
	d := KDecision{K: k, Reason: ReasonFixed, Elbow: -1}
	if dynamic {
		d = DefaultDynamicK().Decide(scores)
		k = d.K
	}
	return order[:min(k, len(order))], d
}
