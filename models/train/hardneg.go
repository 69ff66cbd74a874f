package train

import (
	"strings"

	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
)

// HardNegatives says how MineHardNegatives picks each pair's extra
// negatives: other pairs' b-texts that share words with its a-text (same
// words, another meaning), which in-batch negatives, drawn at random, almost
// never are.
type HardNegatives struct {
	K int // negatives per pair (0: none)
	// Skip passes over the best matches first: among many pairs the very
	// best are often paraphrases of the pair itself.
	Skip int
	// MaxPostings ignores a-text words found in more b-texts than this (0:
	// no limit); such words match a large share of the pairs and make
	// mining slow without making a negative hard.
	MaxPostings int
}

// MineHardNegatives returns, for each pair, the indices of up to h.K other
// pairs ranked by BM25F (the ranker's, with every b-text a skill
// description) for its a-text, best first, after passing over the h.Skip
// best. A pair whose a-text or b-text equals this pair's (ignoring case and
// spacing) is never its negative, nor a b-text made only of the a-text's
// words, and no b-text is picked twice. The result depends only on texts and h,
// not on workers.
func MineHardNegatives(texts []TextPair, h HardNegatives, workers int) [][]int32 {
	out := make([][]int32, len(texts))
	if h.K <= 0 || len(texts) < 2 {
		return out
	}
	docs := make([]ranker.Doc, len(texts))
	for i, p := range texts {
		docs[i] = ranker.Doc{Description: p.B}
	}
	ix := ranker.NewIndex(docs, ranker.DefaultConfig())
	aKey, bKey := textKeys(texts, func(p TextPair) string { return p.A }), textKeys(texts, func(p TextPair) string { return p.B })
	const chunk = 256
	chunks := (len(texts) + chunk - 1) / chunk
	parallelFor(chunks, workers, func(lo, hi int) {
		s := ix.NewLexicalScorer()
		s.MaxPostings = h.MaxPostings
		for c := lo; c < hi; c++ {
			for i := c * chunk; i < min((c+1)*chunk, len(texts)); i++ {
				out[i] = mineOne(s, texts, aKey, bKey, i, h)
			}
		}
	})
	return out
}

// mineOne picks pair i's negatives: BM25F's best matches for its a-text,
// without pairs sharing its a- or b-text, without b-texts seen already and
// without b-texts made only of the a-text's own words (after stemming:
// "extension" for "extensions" is a paraphrase, not a negative).
func mineOne(s *ranker.LexicalScorer, texts []TextPair, aKey, bKey []int32, i int, h HardNegatives) []int32 {
	skip := func(d int) bool { return aKey[d] == aKey[i] || bKey[d] == bKey[i] }
	want := h.K + h.Skip
	top := s.Top(texts[i].A, 2*want+4, skip)
	if len(top) == 0 {
		return nil
	}
	own := map[string]bool{}
	for _, t := range ranker.Tokenize(texts[i].A) {
		own[t] = true
	}
	var picked []int32
	seen := map[int32]bool{}
	for _, d := range top {
		if len(picked) == want {
			break
		}
		if seen[bKey[d]] {
			continue
		}
		seen[bKey[d]] = true
		news := false
		for _, t := range ranker.Tokenize(texts[d].B) {
			if !own[t] {
				news = true
				break
			}
		}
		if news {
			picked = append(picked, int32(d))
		}
	}
	if len(picked) <= h.Skip {
		return nil
	}
	return picked[h.Skip:]
}

// textKeys numbers the distinct texts (lower-cased, spaces collapsed), so
// equal texts get equal keys.
func textKeys(texts []TextPair, text func(TextPair) string) []int32 {
	ids := map[string]int32{}
	keys := make([]int32, len(texts))
	for i, p := range texts {
		k := strings.Join(strings.Fields(strings.ToLower(text(p))), " ")
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
		}
		keys[i] = id
	}
	return keys
}

// TokenizePairsWithNegatives is TokenizePairs with each pair's hard
// negatives (indices into texts, as MineHardNegatives gives) attached as
// the token ids of those pairs' b-texts. Negatives without tokens are left
// out; pairs where either side has none are dropped.
func TokenizePairsWithNegatives(tok *models.Tokenizer, texts []TextPair, negs [][]int32, workers int) []Pair {
	ids := make([]Pair, len(texts))
	parallelFor(len(texts), workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ids[i] = Pair{A: tok.IDs(texts[i].A), B: tok.IDs(texts[i].B)}
		}
	})
	out := make([]Pair, 0, len(ids))
	for i, p := range ids {
		if len(p.A) == 0 || len(p.B) == 0 {
			continue
		}
		if i < len(negs) {
			for _, j := range negs[i] {
				if b := ids[j].B; len(b) > 0 {
					p.Neg = append(p.Neg, b)
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// LoadPairsWithNegatives reads a pairs file (up to max pairs when max > 0),
// mines each pair's hard negatives among them and tokenises the lot. It does
// not use LoadPairs' cache: the negatives are indices into the texts as
// read. withNegs counts the pairs that got at least one negative.
func LoadPairsWithNegatives(path string, max int, h HardNegatives, tok *models.Tokenizer, workers int) (pairs []Pair, info PairsInfo, withNegs int, err error) {
	texts, sum, err := ReadPairs(path, max)
	if err != nil {
		return nil, info, 0, err
	}
	negs := MineHardNegatives(texts, h, workers)
	pairs = TokenizePairsWithNegatives(tok, texts, negs, workers)
	for _, p := range pairs {
		if len(p.Neg) > 0 {
			withNegs++
		}
	}
	return pairs, PairsInfo{SHA256: sum, Lines: len(texts), Pairs: len(pairs)}, withNegs, nil
}
