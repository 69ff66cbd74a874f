package ranker

import (
	"errors"
	"fmt"
)

// SnapshotVersion changes whenever Snapshot's layout or meaning does, so a
// stored snapshot from another build is rebuilt rather than misread.
const SnapshotVersion = 1

// ErrSnapshotMismatch means a snapshot was not taken from these documents
// with these field settings; the caller should build the index with NewIndex.
var ErrSnapshotMismatch = errors.New("ranker: snapshot does not match the documents or field settings")

// Snapshot is everything NewIndex derives from the documents (tokenised and
// stemmed terms, BM25F postings, idf and the TF-IDF vectors), in flat,
// gob-friendly slices, so a short-lived process can restore an index
// without re-analysing every skill. It holds no document text: restore it
// with the same documents it was taken from.
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
	// Postings of term t are PostDoc/PostTF[PostStart[t]:PostStart[t+1]].
	PostStart []int32
	PostDoc   []int32
	PostTF    []float32
	// Vector v is VecTerm/VecW[VecStart[v]:VecStart[v+1]]. Per doc, in doc
	// order: its text vector, then its NHelp, NHarm, NRelHelp and NRelHarm
	// context and reason vectors.
	VecStart                         []int32
	VecTerm                          []int32
	VecW                             []float32
	NHelp, NHarm, NRelHelp, NRelHarm []int32
}

// Snapshot captures the index's analysis of its documents.
func (ix *Index) Snapshot() *Snapshot {
	n := len(ix.docs)
	s := &Snapshot{
		Version: SnapshotVersion, Fields: ix.cfg.Fields, Docs: n,
		Terms: make([]string, len(ix.terms)), Vocab: len(ix.postings),
		IDF: ix.idf, IDFOOV: ix.idfOOV,
		PostStart: make([]int32, 0, len(ix.postings)+1),
		VecStart:  []int32{0},
		NHelp:     make([]int32, n), NHarm: make([]int32, n),
		NRelHelp: make([]int32, n), NRelHarm: make([]int32, n),
	}
	for t, id := range ix.terms {
		s.Terms[id] = t
	}
	for _, ps := range ix.postings {
		s.PostStart = append(s.PostStart, int32(len(s.PostDoc)))
		for _, p := range ps {
			s.PostDoc = append(s.PostDoc, p.doc)
			s.PostTF = append(s.PostTF, p.tf)
		}
	}
	s.PostStart = append(s.PostStart, int32(len(s.PostDoc)))
	add := func(v svec) {
		for _, e := range v {
			s.VecTerm = append(s.VecTerm, e.term)
			s.VecW = append(s.VecW, e.w)
		}
		s.VecStart = append(s.VecStart, int32(len(s.VecTerm)))
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
// from a snapshot of it; rankings are identical. It returns
// ErrSnapshotMismatch (or a wrapped form of it) when the snapshot was taken
// with other field settings, another document count or is malformed.
func NewIndexFromSnapshot(docs []Doc, cfg Config, s *Snapshot) (*Index, error) {
	n := len(docs)
	switch {
	case s == nil || s.Version != SnapshotVersion:
		return nil, ErrSnapshotMismatch
	case s.Fields != cfg.Fields || s.Docs != n:
		return nil, ErrSnapshotMismatch
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshotMismatch, err)
	}
	ix := &Index{
		docs: docs, cfg: cfg, terms: make(map[string]int32, len(s.Terms)),
		idf: s.IDF, idfOOV: s.IDFOOV,
		postings: make([][]posting, s.Vocab),
		docVec:   make([]svec, n),
		help:     make([][]svec, n), harm: make([][]svec, n),
		relHelp: make([][]svec, n), relHarm: make([][]svec, n),
	}
	for id, t := range s.Terms {
		ix.terms[t] = int32(id)
	}
	all := make([]posting, len(s.PostDoc))
	for k := range all {
		all[k] = posting{doc: s.PostDoc[k], tf: s.PostTF[k]}
	}
	for t := range ix.postings {
		if a, b := s.PostStart[t], s.PostStart[t+1]; b > a {
			ix.postings[t] = all[a:b:b]
		}
	}
	entries := make([]entry, len(s.VecTerm))
	for k := range entries {
		entries[k] = entry{term: s.VecTerm[k], w: s.VecW[k]}
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
	group := func(k int32) []svec {
		var out []svec
		for ; k > 0; k-- {
			out = append(out, next())
		}
		return out
	}
	for i := 0; i < n; i++ {
		ix.docVec[i] = next()
		ix.help[i] = group(s.NHelp[i])
		ix.harm[i] = group(s.NHarm[i])
		ix.relHelp[i] = group(s.NRelHelp[i])
		ix.relHarm[i] = group(s.NRelHarm[i])
	}
	return ix, nil
}

// check validates the snapshot's slices against each other, so a damaged
// file can only cause a rebuild, never a panic in Rank.
func (s *Snapshot) check() error {
	n := s.Docs
	nt := len(s.Terms)
	switch {
	case s.Vocab < 0 || s.Vocab > nt || len(s.IDF) != nt:
		return errors.New("term tables disagree")
	case len(s.PostStart) != s.Vocab+1 || len(s.PostDoc) != len(s.PostTF):
		return errors.New("posting tables disagree")
	case len(s.VecTerm) != len(s.VecW):
		return errors.New("vector tables disagree")
	case len(s.NHelp) != n || len(s.NHarm) != n || len(s.NRelHelp) != n || len(s.NRelHarm) != n:
		return errors.New("vector counts disagree")
	}
	if err := monotone(s.PostStart, len(s.PostDoc)); err != nil {
		return fmt.Errorf("postings: %v", err)
	}
	for _, d := range s.PostDoc {
		if d < 0 || int(d) >= n {
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
	if err := monotone(s.VecStart, len(s.VecTerm)); err != nil {
		return fmt.Errorf("vectors: %v", err)
	}
	for _, t := range s.VecTerm {
		if t < 0 || int(t) >= nt {
			return errors.New("vector term out of range")
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
