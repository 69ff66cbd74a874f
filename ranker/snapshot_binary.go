package ranker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// The binary form of a Snapshot (AppendBinary, DecodeSnapshot): a fixed
// header of little-endian counts and settings, then each table as a
// little-endian array starting on an 8-byte boundary (from the start of the
// form), the term text, then the typo words' tables and text last. Decoding shares the arrays with the input
// when they are aligned in memory on a little-endian machine, so restoring
// an index copies nothing but what Index itself needs.
const (
	snapshotMagic     = "MGSN"
	snapshotHeaderLen = 160
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
	wordBytes := 0
	for _, w := range s.Words {
		wordBytes += len(w)
	}
	if len(s.Words) != len(s.WordTerms) {
		return b, errors.New("ranker: snapshot typo tables disagree")
	}
	counts := []int{s.Docs, len(s.Terms), s.Vocab, len(s.Post), len(s.VecStart), len(s.Vec), termBytes}
	for _, c := range []int{len(s.Words), wordBytes, s.TypoMinLen, len(s.WordHash)} {
		if c < 0 || c > max32 {
			return b, errors.New("ranker: snapshot too large to store")
		}
	}
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
		f.Triggers.Weight, f.Triggers.B, f.Contexts.Weight, f.Contexts.B, s.IDFOOV, f.Body.Weight, f.Body.B} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	b = le.AppendUint32(b, uint32(len(s.Words)))
	b = le.AppendUint32(b, uint32(wordBytes))
	b = le.AppendUint32(b, uint32(s.TypoMinLen))
	b = le.AppendUint32(b, uint32(len(s.WordHash)))
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
	end = 0
	for _, w := range s.Words {
		end += uint32(len(w))
		b = le.AppendUint32(b, end)
	}
	pad()
	i32s(s.WordTerms)
	for _, h := range s.WordHash {
		b = le.AppendUint32(b, h)
	}
	pad()
	for _, w := range s.Words {
		b = append(b, w...)
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
	nwords, wordBytes, typoMin, nhash := int(le.Uint32(data[144:])), int(le.Uint32(data[148:])), int(le.Uint32(data[152:])), int(le.Uint32(data[156:]))
	s := &Snapshot{
		Version: SnapshotVersion, Docs: docs, Vocab: vocab, IDFOOV: f64(10), TypoMinLen: typoMin,
		Fields: Fields{
			Name: Field{f64(0), f64(1)}, Description: Field{f64(2), f64(3)}, Headings: Field{f64(4), f64(5)},
			Triggers: Field{f64(6), f64(7)}, Contexts: Field{f64(8), f64(9)}, Body: Field{f64(11), f64(12)},
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
	wordEnds := take[uint32](r, nwords, 4)
	s.WordTerms = take[int32](r, nwords, 4)
	s.WordHash = take[uint32](r, nhash, 4)
	wordBlob := take[byte](r, wordBytes, 1)
	if r.bad {
		return bad("truncated")
	}
	var ok bool
	if s.Terms, ok = strs(ends, blob); !ok {
		return bad("term offsets")
	}
	if s.Words, ok = strs(wordEnds, wordBlob); !ok {
		return bad("typo word offsets")
	}
	return s, nil
}

// strs is the strings a table of end offsets cuts blob into, sharing it.
func strs(ends []uint32, blob []byte) ([]string, bool) {
	out := make([]string, len(ends))
	start := 0
	for i, e := range ends {
		end := int(e)
		if end < start || end > len(blob) {
			return nil, false
		}
		if end > start {
			out[i] = unsafe.String(&blob[start], end-start)
		}
		start = end
	}
	return out, start == len(blob)
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
