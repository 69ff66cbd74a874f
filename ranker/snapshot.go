package ranker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// SnapshotVersion changes whenever Snapshot's layout or meaning does, so a
// stored snapshot from another build is rebuilt rather than misread.
const SnapshotVersion = 2

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
	case s.Fields != cfg.Fields || s.Docs != n:
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
		docs: docs, cfg: cfg, terms: make(map[string]int32, len(s.Terms)),
		idf: s.IDF, idfOOV: s.IDFOOV,
		postings: make([][]posting, s.Vocab),
		docVec:   make([]svec, n),
		help:     perDoc(s.NHelp), harm: perDoc(s.NHarm),
		relHelp: perDoc(s.NRelHelp), relHarm: perDoc(s.NRelHarm),
	}
	for id, t := range s.Terms {
		ix.terms[t] = int32(id)
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

// The binary form of a Snapshot (AppendBinary, DecodeSnapshot): a fixed
// header of little-endian counts and settings, then each table as a
// little-endian array starting on an 8-byte boundary (from the start of the
// form), the term text last. Decoding shares the arrays with the input
// when they are aligned in memory on a little-endian machine, so restoring
// an index copies nothing but what Index itself needs.
const (
	snapshotMagic     = "MGSN"
	snapshotHeaderLen = 128
)

// nativeLE reports whether this machine stores integers little-endian,
// the order of the binary form.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// AppendBinary appends the snapshot's binary form to b.
func (s *Snapshot) AppendBinary(b []byte) ([]byte, error) {
	const max32 = math.MaxUint32
	termBytes := 0
	for _, t := range s.Terms {
		termBytes += len(t)
	}
	counts := []int{s.Docs, len(s.Terms), s.Vocab, len(s.Post), len(s.VecStart), len(s.Vec), termBytes}
	for _, c := range counts {
		if c < 0 || c > max32 {
			return b, errors.New("ranker: snapshot too large to store")
		}
	}
	base := len(b)
	le := binary.LittleEndian
	b = append(b, snapshotMagic...)
	b = le.AppendUint32(b, SnapshotVersion)
	for _, c := range counts {
		b = le.AppendUint32(b, uint32(c))
	}
	b = le.AppendUint32(b, 0)
	f := s.Fields
	for _, v := range [...]float64{f.Name.Weight, f.Name.B, f.Description.Weight, f.Description.B, f.Headings.Weight, f.Headings.B,
		f.Triggers.Weight, f.Triggers.B, f.Contexts.Weight, f.Contexts.B, s.IDFOOV} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	pad := func() {
		for (len(b)-base)%8 != 0 {
			b = append(b, 0)
		}
	}
	pad()
	if len(b)-base != snapshotHeaderLen {
		panic("ranker: snapshot header length")
	}
	for _, v := range s.IDF {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	end := uint32(0)
	for _, t := range s.Terms {
		end += uint32(len(t))
		b = le.AppendUint32(b, end)
	}
	pad()
	i32s := func(vs []int32) {
		for _, v := range vs {
			b = le.AppendUint32(b, uint32(v))
		}
		pad()
	}
	i32s(s.PostStart)
	for _, p := range s.Post {
		b = le.AppendUint32(le.AppendUint32(b, uint32(p.Doc)), math.Float32bits(p.TF))
	}
	i32s(s.VecStart)
	for _, e := range s.Vec {
		b = le.AppendUint32(le.AppendUint32(b, uint32(e.Term)), math.Float32bits(e.W))
	}
	i32s(s.NHelp)
	i32s(s.NHarm)
	i32s(s.NRelHelp)
	i32s(s.NRelHarm)
	for _, t := range s.Terms {
		b = append(b, t...)
	}
	pad()
	return b, nil
}

// DecodeSnapshot reads a snapshot's binary form, which must begin on an
// 8-byte boundary in memory to be shared rather than copied. The snapshot
// shares data (its terms and tables point into it), so data must not
// change afterwards. It returns ErrSnapshotMismatch (wrapped) for a form
// of another version or a malformed one; NewIndexFromSnapshot checks the
// tables against each other.
func DecodeSnapshot(data []byte) (*Snapshot, error) {
	bad := func(why string) (*Snapshot, error) {
		return nil, fmt.Errorf("%w: %s", ErrSnapshotMismatch, why)
	}
	if len(data) < snapshotHeaderLen || string(data[:4]) != snapshotMagic {
		return bad("not a snapshot")
	}
	le := binary.LittleEndian
	u32 := func(k int) int { return int(le.Uint32(data[4+4*k:])) }
	if u32(0) != SnapshotVersion {
		return bad("another snapshot version")
	}
	docs, nterms, vocab, npost, nvecStart, nvec, termBytes := u32(1), u32(2), u32(3), u32(4), u32(5), u32(6), u32(7)
	f64 := func(k int) float64 { return math.Float64frombits(le.Uint64(data[40+8*k:])) }
	s := &Snapshot{
		Version: SnapshotVersion, Docs: docs, Vocab: vocab, IDFOOV: f64(10),
		Fields: Fields{
			Name: Field{f64(0), f64(1)}, Description: Field{f64(2), f64(3)}, Headings: Field{f64(4), f64(5)},
			Triggers: Field{f64(6), f64(7)}, Contexts: Field{f64(8), f64(9)},
		},
	}
	r := &tableReader{data: data, off: snapshotHeaderLen}
	s.IDF = take[float64](r, nterms, 8)
	ends := take[uint32](r, nterms, 4)
	s.PostStart = take[int32](r, vocab+1, 4)
	s.Post = take[Posting](r, npost, 4)
	s.VecStart = take[int32](r, nvecStart, 4)
	s.Vec = take[VecEntry](r, nvec, 4)
	s.NHelp = take[int32](r, docs, 4)
	s.NHarm = take[int32](r, docs, 4)
	s.NRelHelp = take[int32](r, docs, 4)
	s.NRelHarm = take[int32](r, docs, 4)
	blob := take[byte](r, termBytes, 1)
	if r.bad {
		return bad("truncated")
	}
	s.Terms = make([]string, nterms)
	start := 0
	for i, e := range ends {
		end := int(e)
		if end < start || end > len(blob) {
			return bad("term offsets")
		}
		if end > start {
			s.Terms[i] = unsafe.String(&blob[start], end-start)
		}
		start = end
	}
	if start != len(blob) {
		return bad("term offsets")
	}
	return s, nil
}

// tableReader walks the tables of a snapshot's binary form.
type tableReader struct {
	data []byte
	off  int
	bad  bool
}

// take returns the next table of n values of T, made of little-endian
// words of the given size, and moves past it and its padding. It shares
// the reader's bytes when it can and copies them otherwise; nil for n = 0
// or once the data ran out.
func take[T any](r *tableReader, n, word int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if r.bad || n < 0 || n > (len(r.data)-r.off)/size {
		r.bad = true
		return nil
	}
	if n == 0 {
		return nil
	}
	raw := r.data[r.off : r.off+n*size]
	r.off += (n*size + 7) &^ 7
	if r.off > len(r.data) {
		r.off = len(r.data)
	}
	p := unsafe.Pointer(unsafe.SliceData(raw))
	if nativeLE && uintptr(p)%unsafe.Alignof(*new(T)) == 0 {
		return unsafe.Slice((*T)(p), n)
	}
	out := make([]T, n)
	dst := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(raw))
	copy(dst, raw)
	if !nativeLE && word > 1 {
		for i := 0; i < len(dst); i += word {
			for a, b := i, i+word-1; a < b; a, b = a+1, b-1 {
				dst[a], dst[b] = dst[b], dst[a]
			}
		}
	}
	return out
}
