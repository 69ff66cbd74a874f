package ranker

import (
	"sort"
	"strings"
	"unicode"
)

// Typos is how the ranker reads a prompt word the catalog has never seen
// ("kuberntes", "dokcer"): as the catalog word one edit away, so a typing
// slip does not cost the prompt its best word. A short word is left alone:
// among four-letter words one edit reaches many others ("test", "text",
// "best", "rest"), so a correction there is a guess, not a reading.
type Typos struct {
	// MinLen is the shortest prompt word corrected, and the shortest
	// catalog word it may become; 0 turns correction off.
	MinLen int
	// Weight scales a corrected word's share of the lexical score (its
	// idf), for a correction trusted less than the word typed right; the
	// attainable score counts it in full.
	Weight float64
}

// DefaultTypos corrects words of five letters or more, at the weight of
// the word typed right: four letters made prompts that need no skill find
// one, six left many typos unread, and a discount (0.6, 0.8) only lost
// coverage, on the development benchmarks.
func DefaultTypos() Typos { return Typos{MinLen: 5, Weight: 1} }

// Correction is one prompt word the catalog does not know, read as a
// catalog word one edit away (Damerau–Levenshtein: one insertion,
// deletion, substitution or swap of adjacent letters).
type Correction struct {
	// Word is the word as typed, lower-cased; To the catalog's word.
	Word string `json:"word"`
	To   string `json:"to"`
	// from is Word's index term, term To's.
	from string
	term int32
}

// Prompt is a prompt read against one index: its distinct terms and the
// corrections of the words the catalog does not know. Read it once and
// both channels see the same reading (Corrected is what a model embeds).
type Prompt struct {
	Text        string
	Corrections []Correction
	// Focus is a long prompt's sentences, each a request or narrative
	// (ReadWith; nil: a short prompt, read as it is).
	Focus Focus
	// terms are Text's distinct index terms in order; weights, for a long
	// prompt, what each weighs (nil: every term 1).
	terms   []string
	weights []float64
	// also is what ReadWith joined after the text (the project's name).
	also string
}

// Read tokenises a prompt as Rank does and corrects its unknown words.
func (ix *Index) Read(text string) Prompt {
	p := Prompt{Text: text}
	seen := map[string]bool{}
	words(text, func(w string) {
		s := stems(nil).stem(w)
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		p.terms = append(p.terms, s)
		if _, known := ix.termID(s); known || ix.dict != nil && ix.dict(w) {
			return
		}
		if to, term, ok := ix.correct(w); ok {
			p.Corrections = append(p.Corrections, Correction{Word: w, To: to, from: s, term: term})
		}
	})
	return p
}

// SetDictionary gives the index the words of the language (lower case):
// a prompt word among them is meant as written, though no skill says it
// ("tourist" is not a typo of "tourism", nor "paris" of "parks"). Call it
// before ranking, once; nil: every word the catalog lacks may be a typo.
func (ix *Index) SetDictionary(has func(word string) bool) { ix.dict = has }

// correction is the correction of the index term t, if any.
func (p *Prompt) correction(t string) *Correction {
	for i := range p.Corrections {
		if p.Corrections[i].from == t {
			return &p.Corrections[i]
		}
	}
	return nil
}

// Corrected is the prompt's text with each corrected word replaced by the
// catalog's word, for a channel that reads words rather than index terms.
func (p Prompt) Corrected() string {
	if len(p.Corrections) == 0 {
		return p.Text
	}
	var b strings.Builder
	last := 0
	wordSpans(p.Text, func(start, end int) {
		w := strings.ToLower(p.Text[start:end])
		for _, c := range p.Corrections {
			if c.Word == w {
				b.WriteString(p.Text[last:start])
				b.WriteString(c.To)
				last = end
				return
			}
		}
	})
	b.WriteString(p.Text[last:])
	return b.String()
}

// wordSpans calls f with the byte offsets of each word of text, as words
// finds them.
func wordSpans(text string, f func(start, end int)) {
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(start, i)
			start = -1
		}
	}
	if start >= 0 {
		f(start, len(text))
	}
}

// correct finds the catalog word one edit from w, an unknown word: of
// several, the one whose term the most skills contain (ties: the first in
// byte order). It tries every edit of w against the sorted catalog words,
// about 52 per letter, in the hash table of the catalog words the index
// keeps (typoTable), so only a word the index has never seen pays.
func (ix *Index) correct(w string) (to string, term int32, ok bool) {
	if n := ix.cfg.Typos.MinLen; n <= 0 || len(w) < n || len(ix.typoHash) == 0 || !lowerASCII(w) {
		return "", 0, false
	}
	best, bestDF := -1, -1
	buf := make([]byte, 0, len(w)+1)
	mask := uint32(len(ix.typoHash) - 1)
	try := func(e []byte) {
		for h := fnv1a(e) & mask; ; h = (h + 1) & mask {
			k := int(ix.typoHash[h]) - 1
			if k < 0 {
				return
			}
			if ix.typoWords[k] != string(e) {
				continue
			}
			df := len(ix.postings[ix.typoTerms[k]])
			if df > bestDF || df == bestDF && ix.typoWords[k] < ix.typoWords[best] {
				best, bestDF = k, df
			}
			return
		}
	}
	for i := range len(w) {
		try(append(append(buf[:0], w[:i]...), w[i+1:]...)) // deletion
		if i+1 < len(w) && w[i] != w[i+1] {
			buf = append(append(buf[:0], w[:i]...), w[i+1], w[i])
			try(append(buf, w[i+2:]...)) // adjacent swap
		}
		for c := byte('a'); c <= 'z'; c++ {
			if c != w[i] {
				buf = append(append(buf[:0], w[:i]...), c)
				try(append(buf, w[i+1:]...)) // substitution
			}
		}
	}
	for i := range len(w) + 1 {
		for c := byte('a'); c <= 'z'; c++ {
			buf = append(append(buf[:0], w[:i]...), c)
			try(append(buf, w[i:]...)) // insertion
		}
	}
	if best < 0 {
		return "", 0, false
	}
	return ix.typoWords[best], ix.typoTerms[best], true
}

// lowerASCII reports whether w is made of the letters a to z only: the
// edits correct tries are of those letters.
func lowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// typoVocab collects the catalog words a prompt word may be corrected to:
// the words of the fields that say what a skill is (name, description,
// headings, triggers; not past prompts, which may hold typos themselves,
// and not the body, kept only as terms), MinLen letters or more, each with
// its term.
type typoVocab map[string]int32

func (v typoVocab) add(minLen int, w string, term int32) {
	if minLen > 0 && len(w) >= minLen && lowerASCII(w) {
		v[w] = term
	}
}

// sorted is the vocabulary as the index keeps it: the words in byte
// order and their terms.
func (v typoVocab) sorted() ([]string, []int32) {
	ws := make([]string, 0, len(v))
	for w := range v {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	ts := make([]int32, len(ws))
	for i, w := range ws {
		ts[i] = v[w]
	}
	return ws, ts
}

// typoTable is an open-addressing hash table of words (FNV-1a, linear
// probing): slot h holds 1 + the index of a word, 0 when empty; its size
// is a power of two at least twice the words', so a probe stops soon. It
// is built with the index and stored in its snapshot, so a prompt's
// corrections cost a lookup per edit and opening the index builds nothing.
func typoTable(words []string) []uint32 {
	size := typoTableSize(len(words))
	if size == 0 {
		return nil
	}
	t := make([]uint32, size)
	mask := uint32(size - 1)
	for i, w := range words {
		h := fnv1aString(w) & mask
		for t[h] != 0 {
			h = (h + 1) & mask
		}
		t[h] = uint32(i + 1)
	}
	return t
}

// lookupWord is the index of w in words through their typoTable t, or -1.
func lookupWord(t []uint32, words []string, w string) int {
	if len(t) == 0 {
		return -1
	}
	mask := uint32(len(t) - 1)
	for h := fnv1aString(w) & mask; ; h = (h + 1) & mask {
		k := int(t[h]) - 1
		if k < 0 || words[k] == w {
			return k
		}
	}
}

// fnv1aString is fnv1a of a string.
func fnv1aString(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// typoTableSize is the size of typoTable's table for n words.
func typoTableSize(n int) int {
	if n == 0 {
		return 0
	}
	size := 1
	for size < 2*n {
		size <<= 1
	}
	return size
}

// fnv1a is the 32-bit FNV-1a hash of b.
func fnv1a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// ReadWith reads a prompt as Rank does: with the words that join it after
// its text (also: the project's name, at full weight), and a long
// prompt's sentences weighed (FocusOf), also joining after the weighing so
// it is never the prompt's last sentence.
func (ix *Index) ReadWith(text, also string) Prompt {
	focus := FocusOf(text)
	if also != "" {
		text += "\n" + also
		if focus != nil {
			focus = append(focus[:len(focus):len(focus)], Sentence{Text: also, Request: true})
		}
	}
	p := ix.Read(text)
	p.also = also
	if focus != nil {
		p.Focus = focus
		p.weights = focus.weights(p.terms)
	}
	return p
}

// Request is the text of a prompt a model embeds: all of it, or of a long
// prompt its request sentences (the mean over a story's words is the
// story's subject), then what joined it; typos not corrected (Corrected).
func (p Prompt) Request() string {
	if p.Focus == nil {
		return p.Text
	}
	f := p.Focus
	if p.also != "" && len(f) > 0 {
		f = f[:len(f)-1] // the joined words, added back below
	}
	text := f.Request()
	if p.also != "" {
		text += "\n" + p.also
	}
	return text
}
