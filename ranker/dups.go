package ranker

import (
	"slices"
	"sort"
)

// DupPair is two skills that may say the same thing, by doc index (A < B).
type DupPair struct {
	A, B int
	// Cosine is the semantic model's cosine of the two skills' name and
	// description vectors (0 without a model).
	Cosine float64
	// Jaccard is the share of their name and description terms they
	// share (DupTerms).
	Jaccard float64
}

// DupTerms are a skill's name and description as a sorted set of index
// terms (Tokenize): what lexical near-identity compares, so a copy whose
// wording was reordered or re-punctuated still matches its original.
func DupTerms(d Doc) []string {
	t := Tokenize(d.Description)
	slices.Sort(t)
	return slices.Compact(t)
}

// Jaccard is |a ∩ b| / |a ∪ b| of two sorted term sets (0 when both are
// empty).
func Jaccard(a, b []string) float64 {
	i, j, both := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			both++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - both
	if union == 0 {
		return 0
	}
	return float64(both) / float64(union)
}

// Duplicates are the pairs of docs whose cosine (nil: no model) reaches
// cosCut or whose term sets' Jaccard reaches jacCut (a cut <= 0 turns its
// test off), ordered by cosine then Jaccard, highest first, then by index.
// Every pair is compared: a catalog of thousands of skills costs seconds,
// which lint and doctor can afford and the prompt hook never pays.
func Duplicates(docs []Doc, cos func(a, b int) float64, cosCut, jacCut float64) []DupPair {
	terms := make([][]string, len(docs))
	for i, d := range docs {
		terms[i] = DupTerms(d)
	}
	var out []DupPair
	for a := range docs {
		for b := a + 1; b < len(docs); b++ {
			p := DupPair{A: a, B: b, Jaccard: Jaccard(terms[a], terms[b])}
			if cos != nil {
				p.Cosine = cos(a, b)
			}
			if (cos != nil && cosCut > 0 && p.Cosine >= cosCut) || (jacCut > 0 && p.Jaccard >= jacCut) {
				out = append(out, p)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Cosine != out[j].Cosine {
			return out[i].Cosine > out[j].Cosine
		}
		return out[i].Jaccard > out[j].Jaccard
	})
	return out
}
