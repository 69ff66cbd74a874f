package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"golang.org/x/sys/unix"
)

// The compiled index's file format (see index.go for what it holds
// and when it is rebuilt). The file is a fixed header, the documents
// without their bodies, the snapshot's binary form and the bodies. A hook
// call reads the header and then only what it needs (the bodies, most of a
// real skill's bytes, only for the compose format, the one that injects
// them) into one buffer that the documents' strings and the snapshot's
// tables share: decoding copies nothing and allocates little, which
// matters because every fresh page of memory costs the short-lived hook
// process a page fault.
const (
	indexMagic     = "MGROUTE\x00"
	indexKeyLen    = 64 // hex SHA-256
	indexHeaderLen = 288
)

// indexHeader is the compiled index's fixed header: magic, version, the
// document count, the three keys (skills, ranker settings, quick stamp),
// the lengths of the six sections (documents, snapshot, vectors, bodies,
// file stamps, fallback vectors), a CRC-32 of the documents and snapshot,
// and one of each other section.
type indexHeader struct {
	version, docs                                         uint32
	key, rkey, quick                                      string
	docsLen, snapLen, vecLen, bodiesLen, stampsLen, fbLen uint64
	crcMain, crcVec, crcBodies, crcStamps, crcFb          uint32
}

// Offsets of the sections in the file; each starts 8-aligned. The
// fallback vectors (Compiled.Fallback) lie between the vectors and the
// bodies.
func (h indexHeader) snapOff() uint64   { return indexHeaderLen + align8(h.docsLen) }
func (h indexHeader) vecOff() uint64    { return h.snapOff() + align8(h.snapLen) }
func (h indexHeader) fbOff() uint64     { return h.vecOff() + align8(h.vecLen) }
func (h indexHeader) bodiesOff() uint64 { return h.fbOff() + align8(h.fbLen) }
func (h indexHeader) stampsOff() uint64 { return h.bodiesOff() + align8(h.bodiesLen) }

func align8(n uint64) uint64 { return (n + 7) &^ 7 }

func (h indexHeader) append(b []byte) []byte {
	le := binary.LittleEndian
	b = append(b, indexMagic...)
	b = le.AppendUint32(b, h.version)
	b = le.AppendUint32(b, h.docs)
	b = append(b, h.key...)
	b = append(b, h.rkey...)
	b = append(b, h.quick...)
	b = le.AppendUint64(b, h.docsLen)
	b = le.AppendUint64(b, h.snapLen)
	b = le.AppendUint64(b, h.vecLen)
	b = le.AppendUint64(b, h.bodiesLen)
	b = le.AppendUint32(b, h.crcMain)
	b = le.AppendUint32(b, h.crcVec)
	b = le.AppendUint32(b, h.crcBodies)
	b = le.AppendUint32(b, h.crcStamps)
	b = le.AppendUint64(b, h.stampsLen)
	b = le.AppendUint64(b, h.fbLen)
	b = le.AppendUint32(b, h.crcFb)
	return append(b, make([]byte, indexHeaderLen-276)...)
}

func parseIndexHeader(b []byte) (indexHeader, bool) {
	if len(b) < indexHeaderLen || string(b[:8]) != indexMagic {
		return indexHeader{}, false
	}
	le := binary.LittleEndian
	h := indexHeader{
		version: le.Uint32(b[8:]), docs: le.Uint32(b[12:]),
		key: string(b[16:80]), rkey: string(b[80:144]), quick: string(b[144:208]),
		docsLen: le.Uint64(b[208:]), snapLen: le.Uint64(b[216:]), vecLen: le.Uint64(b[224:]), bodiesLen: le.Uint64(b[232:]),
		crcMain: le.Uint32(b[240:]), crcVec: le.Uint32(b[244:]), crcBodies: le.Uint32(b[248:]),
		crcStamps: le.Uint32(b[252:]), stampsLen: le.Uint64(b[256:]), fbLen: le.Uint64(b[264:]), crcFb: le.Uint32(b[272:]),
	}
	return h, h.version == indexCacheVersion
}

// Want says which optional parts of the compiled index a reader needs:
// the bodies (the compose format injects them), the vectors (a semantic
// model routes), the fallback vectors (the prompt hook routes with the
// built-in model until an ONNX model's server answers) and the stamps of
// the files the documents were built from (a refresh re-reads only the
// skills whose files changed). The documents and, with the same ranker
// settings, the lexical snapshot are always read.
type Want struct {
	Bodies, Vectors, Fallback, Stamps bool
}

// ReadCompiled reads the compiled index; ok means it is whole and of this
// format, and c.Key and c.Quick say which skills it was built from. Its
// snapshot is read too if it matches rkey (else nil, and the bodies are
// read, to rebuild it), its vectors and bodies when wanted. Every byte
// read is checked (CRC-32) before it is used.
func ReadCompiled(dir local.Dir, rkey string, want Want) (c Compiled, ok bool) {
	f, err := os.Open(filepath.Join(dir.Path(), IndexFile))
	if err != nil {
		return c, false
	}
	defer f.Close()
	var hb [indexHeaderLen]byte
	if _, err := io.ReadFull(f, hb[:]); err != nil {
		return c, false
	}
	h, ok := parseIndexHeader(hb[:])
	if !ok {
		return c, false
	}
	st, err := f.Stat()
	size := uint64(st.Size())
	if err != nil || h.docsLen > size || h.snapLen > size || h.vecLen > size || h.fbLen > size || h.bodiesLen > size || h.stampsLen > size ||
		h.stampsOff()+h.stampsLen != size {
		return c, false
	}
	withIndex := h.rkey == rkey
	bodies := want.Bodies || !withIndex
	need := h.snapOff() + h.snapLen
	if want.Vectors {
		need = h.vecOff() + h.vecLen
	}
	if want.Fallback || bodies {
		need = h.fbOff() + h.fbLen
	}
	if bodies {
		need = h.bodiesOff() + h.bodiesLen
	}
	if want.Stamps && bodies {
		need = size // the stamps follow the bodies
	}
	buf := mapIndex(f, need)
	if buf == nil {
		// One buffer, shared by the documents' strings, the snapshot's
		// tables and the vectors; large allocations are page-aligned, as
		// the snapshot wants.
		buf = make([]byte, need)
		copy(buf, hb[:])
		if _, err := io.ReadFull(f, buf[indexHeaderLen:]); err != nil {
			return c, false
		}
	}
	// The vectors, most of a large index's bytes, are checked on another
	// core while the documents and the snapshot are.
	var vecWait func()
	vecOK := false
	vecs, fb := want.Vectors && h.vecLen > 0, want.Fallback && h.fbLen > 0
	if vecs || fb {
		vecWait = goSafe(func() {
			vecOK = (!vecs || crc32.ChecksumIEEE(buf[h.vecOff():h.vecOff()+h.vecLen]) == h.crcVec) &&
				(!fb || crc32.ChecksumIEEE(buf[h.fbOff():h.fbOff()+h.fbLen]) == h.crcFb)
		})
		defer func() {
			if vecWait != nil {
				vecWait() // never leave it reading a buffer the caller may drop
			}
		}()
	}
	if crc32.ChecksumIEEE(buf[indexHeaderLen:h.snapOff()+h.snapLen]) != h.crcMain {
		return c, false
	}
	docs, ok := decodeDocs(buf[indexHeaderLen:indexHeaderLen+h.docsLen], int(h.docs))
	if !ok {
		return c, false
	}
	c = Compiled{Key: h.key, RankerKey: h.rkey, Quick: h.quick, Docs: docs}
	if withIndex {
		s, err := ranker.DecodeSnapshot(buf[h.snapOff() : h.snapOff()+h.snapLen])
		if err != nil {
			return Compiled{}, false
		}
		c.Index = s
	}
	if vecWait != nil {
		vecWait()
		vecWait = nil
		if !vecOK {
			return Compiled{}, false
		}
		if vecs {
			if c.Vectors, ok = decodeVectors(buf[h.vecOff():h.vecOff()+h.vecLen], len(docs)); !ok {
				return Compiled{}, false
			}
		}
		if fb {
			if c.Fallback, ok = decodeVectors(buf[h.fbOff():h.fbOff()+h.fbLen], len(docs)); !ok {
				return Compiled{}, false
			}
		}
	}
	if bodies {
		b := buf[h.bodiesOff() : h.bodiesOff()+h.bodiesLen]
		if crc32.ChecksumIEEE(b) != h.crcBodies {
			return Compiled{}, false
		}
		if c.bodyTerms, ok = decodeBodies(b, docs); !ok {
			return Compiled{}, false
		}
	}
	if want.Stamps {
		var b []byte
		if bodies {
			b = buf[h.stampsOff():]
		} else { // the bodies between were not wanted: read the stamps alone
			b = make([]byte, h.stampsLen)
			if _, err := f.ReadAt(b, int64(h.stampsOff())); err != nil {
				return Compiled{}, false
			}
		}
		if crc32.ChecksumIEEE(b) != h.crcStamps {
			return Compiled{}, false
		}
		if c.Stamps, ok = decodeStamps(b); !ok {
			return Compiled{}, false
		}
	}
	return c, true
}

// mapIndex maps the first n bytes of the compiled index read-only, or
// returns nil (then the caller reads them). Only the prompt hook maps it
// (mapIndexFile): its process ends soon, so the mapping is never
// unmapped, and its worker goroutine turns a fault on the mapping (the
// file truncated in place, which megagit never does: it replaces it) into a
// panic it recovers. Mapping the file instead of reading it saves a page
// fault per 4 KB of buffer: page-cache pages are mapped in batches.
func mapIndex(f *os.File, n uint64) []byte {
	if !mapIndexFile.Load() || n == 0 || n > math.MaxInt32 {
		return nil
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(n), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return m
}

// goSafe runs f on a goroutine of its own and returns what waits for it.
// A goroutine that reads the compiled index's mapping must turn a fault
// on it into a panic as the hook's worker does (see mapIndex); wait
// panics again with what f panicked with, in the caller's goroutine,
// which recovers it.
func goSafe(f func()) (wait func()) {
	done := make(chan any, 1)
	go func() {
		debug.SetPanicOnFault(true)
		defer func() { done <- recover() }()
		f()
	}()
	return func() {
		if p := <-done; p != nil {
			panic(p)
		}
	}
}

// mapIndexFile says whether ReadCompiled may map the compiled index; set
// by the prompt hook's process (MapIndexFiles).
var mapIndexFile atomic.Bool

// MapIndexFiles lets ReadCompiled map the compiled index instead of
// reading it, until restore is called; the caller's goroutine must turn
// faults into panics and recover them (debug.SetPanicOnFault), see mapIndex.
func MapIndexFiles() (restore func()) {
	was := mapIndexFile.Swap(true)
	return func() { mapIndexFile.Store(was) }
}

// writeCompiled saves the compiled index. An index that cannot be encoded
// (incomplete keys, vectors of other documents) is not written; a write
// that fails (a full disk, say) is an error wrapping ErrNotSaved that
// names the file: the caller still has the index in memory.
func writeCompiled(dir local.Dir, c Compiled) error {
	if len(c.Key) != indexKeyLen || len(c.RankerKey) != indexKeyLen || len(c.Quick) != indexKeyLen ||
		c.Index == nil || uint64(len(c.Docs)) > math.MaxUint32 {
		return nil
	}
	if c.Vectors != nil && c.Vectors.Docs() != len(c.Docs) || c.Fallback != nil && c.Fallback.Docs() != len(c.Docs) {
		return nil
	}
	b := make([]byte, indexHeaderLen, 64<<10)
	b = appendDocs(b, c.Docs)
	docsLen := uint64(len(b) - indexHeaderLen)
	b = pad8(b)
	snapAt := len(b)
	b, err := c.Index.AppendBinary(b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotSaved, err)
	}
	snapLen := uint64(len(b) - snapAt)
	b = pad8(b)
	vecAt := len(b)
	if c.Vectors != nil {
		b = appendVectors(b, c.Vectors)
	}
	vecLen := uint64(len(b) - vecAt)
	b = pad8(b)
	fbAt := len(b)
	if c.Fallback != nil {
		b = appendVectors(b, c.Fallback)
	}
	fbLen := uint64(len(b) - fbAt)
	b = pad8(b)
	bodiesAt := len(b)
	b = appendBodies(b, c.Docs)
	bodiesLen := uint64(len(b) - bodiesAt)
	b = pad8(b)
	stampsAt := len(b)
	b = appendStamps(b, c.Stamps)
	h := indexHeader{
		version: indexCacheVersion, docs: uint32(len(c.Docs)), key: c.Key, rkey: c.RankerKey, quick: c.Quick,
		docsLen: docsLen, snapLen: snapLen, vecLen: vecLen, fbLen: fbLen, bodiesLen: bodiesLen, stampsLen: uint64(len(b) - stampsAt),
		crcMain:   crc32.ChecksumIEEE(b[indexHeaderLen : snapAt+int(snapLen)]),
		crcVec:    crc32.ChecksumIEEE(b[vecAt : vecAt+int(vecLen)]),
		crcFb:     crc32.ChecksumIEEE(b[fbAt : fbAt+int(fbLen)]),
		crcBodies: crc32.ChecksumIEEE(b[bodiesAt : bodiesAt+int(bodiesLen)]),
		crcStamps: crc32.ChecksumIEEE(b[stampsAt:]),
	}
	h.append(b[:0])
	if err := dir.WriteCache(IndexFile, b); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the temp file's name: say the index's
			err = pe.Err
		}
		return fmt.Errorf("%w: write %s: %w", ErrNotSaved, filepath.Join(dir.Path(), IndexFile), err)
	}
	_ = os.Remove(filepath.Join(dir.Path(), oldIndexCacheName))
	return nil
}

// ErrNotSaved is a compiled index that could not be written: it was built
// all the same, and routes from memory.
var ErrNotSaved = errors.New("the compiled route index could not be saved")

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}
