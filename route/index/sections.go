package index

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/megagit/megagit/ranker"
)

// The compiled index's sections, each encoded to and decoded from its
// bytes (codec.go puts them in the file): the vectors, the documents
// without their bodies, the bodies and their terms, and the file stamps.
// Decoding checks every length, so a damaged section is refused, never a
// panic.

// appendVectors encodes the vectors section at an 8-aligned offset: the
// dimension, the model key's length and the key, padding to 8 bytes, then
// the rows as little-endian float32s, which a reader maps in place.
func appendVectors(b []byte, v *Vectors) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(v.Dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v.Key)))
	b = pad8(append(b, v.Key...))
	for _, x := range v.Rows {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	// The contexts' rows: their count, whose each is (the document, the top
	// bit set for a harmful one, the next for a verdict's reason), then the
	// rows.
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v.Ctx)))
	for _, c := range v.Ctx {
		ref := uint32(c.Doc)
		if c.Harm {
			ref |= 1 << 31
		}
		if c.Reason {
			ref |= 1 << 30
		}
		if c.Learnt {
			ref |= 1 << 29
		}
		b = binary.LittleEndian.AppendUint32(b, ref)
	}
	for _, x := range v.CtxRows {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// decodeVectors reads a vectors section (which starts 8-aligned in the
// file, so its rows are 4-aligned in a mapping or an allocation) for n
// documents. On a little-endian machine the rows are used where they lie.
func decodeVectors(b []byte, n int) (*Vectors, bool) {
	if len(b) < 8 {
		return nil, false
	}
	dim, klen := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	start := align8(8 + uint64(klen))
	if dim == 0 || dim > 1<<16 || uint64(klen) > uint64(len(b)) || start > uint64(len(b)) {
		return nil, false
	}
	rest := b[start:]
	main := 4 * 2 * uint64(dim) * uint64(n)
	if uint64(len(rest)) < main+4 {
		return nil, false
	}
	v := &Vectors{Key: string(b[8 : 8+klen]), Dim: int(dim), Rows: floats(rest[:main])}
	rest = rest[main:]
	nctx := uint64(binary.LittleEndian.Uint32(rest))
	rest = rest[4:]
	if uint64(len(rest)) != 4*nctx+4*uint64(dim)*nctx {
		return nil, false
	}
	if nctx > 0 {
		v.Ctx = make([]CtxRow, nctx)
		for k := range v.Ctx {
			ref := binary.LittleEndian.Uint32(rest[4*k:])
			if doc := ref &^ (7 << 29); doc < uint32(n) {
				v.Ctx[k] = CtxRow{Doc: int32(doc), Harm: ref&(1<<31) != 0, Reason: ref&(1<<30) != 0, Learnt: ref&(1<<29) != 0}
			} else {
				return nil, false
			}
		}
		v.CtxRows = floats(rest[4*nctx:])
	}
	return v, true
}

// floats are the little-endian float32s of b, used where they lie when the
// machine is little-endian and b 4-aligned (a mapping or an allocation of
// the index), else copied.
func floats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// appendDocs encodes the documents without their bodies: the total counts
// of list strings and related reasons, then per document its strings,
// string lists, counts, weight and related reasons.
func appendDocs(b []byte, docs []ranker.Doc) []byte {
	lists, related := 0, 0
	for _, d := range docs {
		lists += len(d.Headings) + len(d.Triggers) + len(d.HelpfulContexts) + len(d.HarmfulContexts) + len(d.Learnt) + len(d.Paths) + len(d.Held)
		related += len(d.Related)
	}
	b = binary.AppendUvarint(b, uint64(lists))
	b = binary.AppendUvarint(b, uint64(related))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	list := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	for _, d := range docs {
		str(d.ID)
		str(d.Path)
		str(d.Description)
		str(d.Status)
		list(d.Held)
		list(d.Headings)
		list(d.Triggers)
		list(d.HelpfulContexts)
		list(d.HarmfulContexts)
		list(d.Learnt)
		list(d.Paths)
		b = binary.AppendVarint(b, int64(d.HelpfulCount))
		b = binary.AppendVarint(b, int64(d.HarmfulCount))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Weight))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Silence))
		b = binary.AppendVarint(b, d.Updated)
		b = binary.AppendVarint(b, d.LearntUpdated)
		b = binary.AppendUvarint(b, uint64(len(d.Related)))
		for _, r := range d.Related {
			str(r.Text)
			if r.Helpful {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	}
	return b
}

// appendBodies encodes the documents' bodies, then their body terms
// (ranker.FillBodyTerms), per document their count and then each term and
// its count. The terms come last, so a reader that only injects bodies
// never decodes them (bodyTerms).
func appendBodies(b []byte, docs []ranker.Doc) []byte {
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(len(d.Body)))
		b = append(b, d.Body...)
	}
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(len(d.BodyTerms)))
		for _, t := range d.BodyTerms {
			b = binary.AppendUvarint(b, uint64(len(t.Term)))
			b = append(b, t.Term...)
			b = binary.AppendUvarint(b, uint64(t.N))
		}
	}
	return b
}

// docReader decodes the documents; its strings share the buffer, which
// must not change afterwards. Any malformed length makes it bad, never a
// panic.
type docReader struct {
	b   []byte
	bad bool
}

func (r *docReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *docReader) varint() int {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *docReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return ""
	}
	if n == 0 {
		return ""
	}
	s := unsafe.String(&r.b[0], int(n))
	r.b = r.b[n:]
	return s
}

// list takes the next string list from pool (nil when empty).
func (r *docReader) list(pool *[]string) []string {
	n := r.uvarint()
	if n == 0 || n > uint64(len(*pool)) {
		r.bad = r.bad || n > uint64(len(*pool))
		return nil
	}
	out := (*pool)[:n:n]
	*pool = (*pool)[n:]
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func decodeDocs(b []byte, n int) ([]ranker.Doc, bool) {
	r := &docReader{b: b}
	lists, related := r.uvarint(), r.uvarint()
	// Every list string and reason takes at least one byte.
	if r.bad || lists > uint64(len(r.b)) || related > uint64(len(r.b)) || n > len(r.b) {
		return nil, false
	}
	pool := make([]string, lists)
	reasons := make([]ranker.Reason, related)
	docs := make([]ranker.Doc, n)
	for i := range docs {
		d := &docs[i]
		d.ID, d.Path, d.Description, d.Status = r.str(), r.str(), r.str(), r.str()
		d.Held = r.list(&pool)
		d.Headings, d.Triggers = r.list(&pool), r.list(&pool)
		d.HelpfulContexts, d.HarmfulContexts = r.list(&pool), r.list(&pool)
		d.Learnt = r.list(&pool)
		d.Paths = r.list(&pool)
		d.HelpfulCount, d.HarmfulCount = r.varint(), r.varint()
		if len(r.b) < 16 {
			return nil, false
		}
		d.Weight = math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		d.Silence = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8:]))
		r.b = r.b[16:]
		d.Updated = int64(r.varint())
		d.LearntUpdated = int64(r.varint())
		if k := r.uvarint(); k > 0 {
			if k > uint64(len(reasons)) {
				return nil, false
			}
			d.Related, reasons = reasons[:k:k], reasons[k:]
			for j := range d.Related {
				d.Related[j].Text = r.str()
				if len(r.b) == 0 {
					return nil, false
				}
				d.Related[j].Helpful = r.b[0] == 1
				r.b = r.b[1:]
			}
		}
		if r.bad {
			return nil, false
		}
	}
	return docs, len(r.b) == 0 && len(pool) == 0 && len(reasons) == 0
}

// decodeBodies sets the documents' bodies and returns the encoded body
// terms that follow them, for decodeBodyTerms.
func decodeBodies(b []byte, docs []ranker.Doc) (terms []byte, ok bool) {
	r := &docReader{b: b}
	for i := range docs {
		docs[i].Body = r.str()
	}
	return r.b, !r.bad
}

// decodeBodyTerms sets the documents' body terms from what decodeBodies
// returned.
func decodeBodyTerms(b []byte, docs []ranker.Doc) bool {
	r := &docReader{b: b}
	for i := range docs {
		n := r.uvarint()
		if n > uint64(len(r.b))/2 { // each term takes two bytes at least
			return false
		}
		docs[i].BodyTerms = nil
		if n == 0 {
			continue
		}
		terms := make([]ranker.TermCount, n)
		for k := range terms {
			terms[k].Term = r.str()
			c := r.uvarint()
			if c > uint64(len(docs[i].Body)) { // a count beyond the body's bytes
				return false
			}
			terms[k].N = int(c)
		}
		docs[i].BodyTerms = terms
	}
	return !r.bad && len(r.b) == 0
}

// appendStamps encodes the file stamps: the count, then per file its path
// and the stamp's four numbers.
func appendStamps(b []byte, fs []FileStamp) []byte {
	b = binary.AppendUvarint(b, uint64(len(fs)))
	for _, f := range fs {
		b = binary.AppendUvarint(b, uint64(len(f.Path)))
		b = f.Stamp.append(append(b, f.Path...))
	}
	return b
}

func decodeStamps(b []byte) ([]FileStamp, bool) {
	r := &docReader{b: b}
	n := r.uvarint()
	if r.bad || n > uint64(len(b))/33 {
		return nil, false
	}
	out := make([]FileStamp, n)
	le := binary.LittleEndian
	for i := range out {
		out[i].Path = r.str()
		if r.bad || len(r.b) < 32 {
			return nil, false
		}
		out[i].Stamp = Stamp{size: int64(le.Uint64(r.b)), mtime: int64(le.Uint64(r.b[8:])),
			ctime: int64(le.Uint64(r.b[16:])), ino: le.Uint64(r.b[24:]), ok: true}
		r.b = r.b[32:]
	}
	return out, len(r.b) == 0
}
