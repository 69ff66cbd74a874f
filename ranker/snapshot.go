package ranker

import (
	"errors"
	"fmt"
	"unsafe"
)

// SnapshotVersion changes whenever Snapshot's layout or meaning does, so a
// stored snapshot from another build is rebuilt rather than misread.
const SnapshotVersion = 5 // 5: the postings hold the learnt prompts' terms

// ErrSnapshotMismatch means a snapshot was not taken from these documents
// with these field settings; the caller should build the index with NewIndex.
var ErrSnapshotMismatch = errors.New("ranker: snapshot does not match the documents or field settings")

// Snapshot is everything NewIndex derives from the documents (tokenised and
// stemmed terms, BM25F postings, idf and the TF-IDF vectors), in flat
// slices, so a short-lived process can restore an index without
// re-analysing every skill. It holds no document text: restore it with the
// same documents it was taken from. AppendBinary and DecodeSnapshot store
// it compactly.
type Snapshot struct {
	Version int
	// Fields are the BM25F settings the postings were computed with.
	Fields Fields
	// Docs is the number of documents indexed.
	Docs int
	// Terms are the index terms in id order; the first Vocab have postings
	// and a document frequency, the rest occur only in vectors.
	Terms  []string
	Vocab  int
	IDF    []float64
	IDFOOV float64
	// Postings of term t are Post[PostStart[t]:PostStart[t+1]].
	PostStart []int32
	Post      []Posting
	// Vector v is Vec[VecStart[v]:VecStart[v+1]]. Per doc, in doc order:
	// its text vector, then its NHelp, NHarm, NRelHelp and NRelHarm
	// context and reason vectors.
	VecStart                         []int32
	Vec                              []VecEntry
	NHelp, NHarm, NRelHelp, NRelHarm []int32
	// TypoMinLen is the Typos.MinLen the snapshot was taken with; Words
	// are the catalog words a typo may be corrected to, in byte order,
	// WordTerms their terms and WordHash their hash table (typoTable).
	TypoMinLen int
	Words      []string
	WordTerms  []int32
	WordHash   []uint32
}

// Posting is one document in a term's postings: its BM25F pseudo term
// frequency over all fields.
type Posting struct {
	Doc int32
	TF  float32
}

// VecEntry is one term's weight in a sparse TF-IDF vector.
type VecEntry struct {
	Term int32
	W    float32
}

// Posting and VecEntry have the memory layout of the index's own posting
// and entry, so a restored index shares the snapshot's tables instead of
// copying them (a compile error here means the layouts drifted apart).
var (
	_ [unsafe.Sizeof(Posting{}) - unsafe.Sizeof(posting{})]struct{}
	_ [unsafe.Sizeof(posting{}) - unsafe.Sizeof(Posting{})]struct{}
	_ [unsafe.Offsetof(Posting{}.TF) - unsafe.Offsetof(posting{}.tf)]struct{}
	_ [unsafe.Offsetof(posting{}.tf) - unsafe.Offsetof(Posting{}.TF)]struct{}
	_ [unsafe.Sizeof(VecEntry{}) - unsafe.Sizeof(entry{})]struct{}
	_ [unsafe.Sizeof(entry{}) - unsafe.Sizeof(VecEntry{})]struct{}
	_ [unsafe.Offsetof(VecEntry{}.W) - unsafe.Offsetof(entry{}.w)]struct{}
	_ [unsafe.Offsetof(entry{}.w) - unsafe.Offsetof(VecEntry{}.W)]struct{}
)

// Snapshot captures the index's analysis of its documents.
func (ix *Index) Snapshot() *Snapshot {
	n := len(ix.docs)
	s := &Snapshot{
		Version: SnapshotVersion, Fields: ix.cfg.Fields, Docs: n,
		Terms: ix.termList, Vocab: len(ix.postings),
		IDF: ix.idf, IDFOOV: ix.idfOOV,
		PostStart: make([]int32, 0, len(ix.postings)+1),
		VecStart:  []int32{0},
		NHelp:     make([]int32, n), NHarm: make([]int32, n),
		NRelHelp: make([]int32, n), NRelHarm: make([]int32, n),
		TypoMinLen: ix.cfg.Typos.MinLen, Words: ix.typoWords, WordTerms: ix.typoTerms, WordHash: ix.typoHash,
	}
	if s.Terms == nil {
		s.Terms = make([]string, len(ix.terms))
		for t, id := range ix.terms {
			s.Terms[id] = t
		}
	}
	for _, ps := range ix.postings {
		s.PostStart = append(s.PostStart, int32(len(s.Post)))
		for _, p := range ps {
			s.Post = append(s.Post, Posting{Doc: p.doc, TF: p.tf})
		}
	}
	s.PostStart = append(s.PostStart, int32(len(s.Post)))
	add := func(v svec) {
		for _, e := range v {
			s.Vec = append(s.Vec, VecEntry{Term: e.term, W: e.w})
		}
		s.VecStart = append(s.VecStart, int32(len(s.Vec)))
	}
	for i := 0; i < n; i++ {
		add(ix.docVec[i])
		for _, group := range [...]struct {
			vs []svec
			n  *int32
		}{{ix.help[i], &s.NHelp[i]}, {ix.harm[i], &s.NHarm[i]}, {ix.relHelp[i], &s.NRelHelp[i]}, {ix.relHarm[i], &s.NRelHarm[i]}} {
			*group.n = int32(len(group.vs))
			for _, v := range group.vs {
				add(v)
			}
		}
	}
	return s
}

// NewIndexFromSnapshot restores the index NewIndex(docs, cfg) would build,
// from a snapshot of it; rankings are identical. The index shares the
// snapshot's tables, which must not change afterwards. It returns
// ErrSnapshotMismatch (or a wrapped form of it) when the snapshot was taken
// with other field settings, another document count or is malformed.
func NewIndexFromSnapshot(docs []Doc, cfg Config, s *Snapshot) (*Index, error) {
	n := len(docs)
	switch {
	case s == nil || s.Version != SnapshotVersion:
		return nil, ErrSnapshotMismatch
	case s.Fields != cfg.Fields || s.Docs != n || s.TypoMinLen != cfg.Typos.MinLen:
		return nil, ErrSnapshotMismatch
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshotMismatch, err)
	}
	// A kind of vector no doc has (often all four: no contexts or verdict
	// reasons yet) shares one table of nils; the index never writes them.
	var none [][]svec
	perDoc := func(counts []int32) [][]svec {
		for _, k := range counts {
			if k != 0 {
				return make([][]svec, n)
			}
		}
		if none == nil {
			none = make([][]svec, n)
		}
		return none
	}
	ix := &Index{
		docs: docs, cfg: cfg, termList: s.Terms, termHash: typoTable(s.Terms),
		idf: s.IDF, idfOOV: s.IDFOOV,
		postings: make([][]posting, s.Vocab),
		docVec:   make([]svec, n),
		help:     perDoc(s.NHelp), harm: perDoc(s.NHarm),
		relHelp: perDoc(s.NRelHelp), relHarm: perDoc(s.NRelHarm),
		typoWords: s.Words, typoTerms: s.WordTerms, typoHash: s.WordHash,
	}
	var all []posting
	if len(s.Post) > 0 {
		all = unsafe.Slice((*posting)(unsafe.Pointer(unsafe.SliceData(s.Post))), len(s.Post))
	}
	for t := range ix.postings {
		if a, b := s.PostStart[t], s.PostStart[t+1]; b > a {
			ix.postings[t] = all[a:b:b]
		}
	}
	var entries []entry
	if len(s.Vec) > 0 {
		entries = unsafe.Slice((*entry)(unsafe.Pointer(unsafe.SliceData(s.Vec))), len(s.Vec))
	}
	v := 0
	next := func() svec {
		a, b := s.VecStart[v], s.VecStart[v+1]
		v++
		if b == a {
			return nil
		}
		return svec(entries[a:b:b])
	}
	// The context and reason vectors of all docs share one backing array.
	groups := make([]svec, len(s.VecStart)-1-n)
	group := func(k int32) []svec {
		out := groups[:k:k]
		groups = groups[k:]
		for j := range out {
			out[j] = next()
		}
		return out
	}
	for i := 0; i < n; i++ {
		ix.docVec[i] = next()
		for _, g := range [...]struct {
			k  int32
			to [][]svec
		}{{s.NHelp[i], ix.help}, {s.NHarm[i], ix.harm}, {s.NRelHelp[i], ix.relHelp}, {s.NRelHarm[i], ix.relHarm}} {
			if g.k > 0 {
				g.to[i] = group(g.k)
			}
		}
	}
	return ix, nil
}

// check validates the snapshot's slices against each other, so a damaged
// file can only cause a rebuild, never a panic in Rank.
func (s *Snapshot) check() error {
	n := s.Docs
	nt := len(s.Terms)
	switch {
	case n < 0 || s.Vocab < 0 || s.Vocab > nt || len(s.IDF) != nt:
		return errors.New("term tables disagree")
	case len(s.PostStart) != s.Vocab+1:
		return errors.New("posting tables disagree")
	case len(s.NHelp) != n || len(s.NHarm) != n || len(s.NRelHelp) != n || len(s.NRelHarm) != n:
		return errors.New("vector counts disagree")
	}
	if err := monotone(s.PostStart, len(s.Post)); err != nil {
		return fmt.Errorf("postings: %v", err)
	}
	for _, p := range s.Post {
		if p.Doc < 0 || int(p.Doc) >= n {
			return errors.New("posting doc out of range")
		}
	}
	vecs := n
	for i := 0; i < n; i++ {
		for _, k := range [...]int32{s.NHelp[i], s.NHarm[i], s.NRelHelp[i], s.NRelHarm[i]} {
			if k < 0 {
				return errors.New("negative vector count")
			}
			vecs += int(k)
		}
	}
	if len(s.VecStart) != vecs+1 {
		return errors.New("vector count disagrees")
	}
	if err := monotone(s.VecStart, len(s.Vec)); err != nil {
		return fmt.Errorf("vectors: %v", err)
	}
	for _, e := range s.Vec {
		if e.Term < 0 || int(e.Term) >= nt {
			return errors.New("vector term out of range")
		}
	}
	if len(s.Words) != len(s.WordTerms) || len(s.WordHash) != typoTableSize(len(s.Words)) {
		return errors.New("typo tables disagree")
	}
	filled := 0
	for _, k := range s.WordHash {
		if int(k) > len(s.Words) {
			return errors.New("typo hash out of range")
		}
		if k > 0 {
			filled++
		}
	}
	if filled != len(s.Words) {
		return errors.New("typo hash incomplete") // a probe must meet an empty slot
	}
	for i, t := range s.WordTerms {
		if t < 0 || int(t) >= s.Vocab {
			return errors.New("typo term out of range")
		}
		if i > 0 && s.Words[i-1] >= s.Words[i] {
			return errors.New("typo words out of order")
		}
	}
	return nil
}

// monotone checks offsets run from 0 to end without going back.
func monotone(start []int32, end int) error {
	if len(start) == 0 || start[0] != 0 || int(start[len(start)-1]) != end {
		return errors.New("offsets do not span the table")
	}
	for k := 1; k < len(start); k++ {
		if start[k] < start[k-1] {
			return errors.New("offsets go back")
		}
	}
	return nil
}
