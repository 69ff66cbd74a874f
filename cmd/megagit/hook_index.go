package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
	"golang.org/x/sys/unix"
)

// The prompt hook's compiled index: the ranker documents of every skill
// and a snapshot of their BM25F index, in .megagit/local/route-index.bin.
// The documents are keyed by the path, size, modification and change time
// and inode of every SKILL.md and ledger file (and the skill roots), so a
// hook call skips parsing SKILL.md files unless one changed; the snapshot
// is also keyed by the ranker settings, so a hook call skips tokenising
// and stemming every skill unless the skills or settings changed.
//
// The file is a fixed header, the documents without their bodies, the
// snapshot's binary form and the bodies. A hook call reads the header and
// then only what it needs (the bodies, most of a real skill's bytes, only
// for the compose format, the one that injects them) into one buffer that
// the documents' strings and the snapshot's tables share: decoding copies
// nothing and allocates little, which matters because every fresh page of
// memory costs the short-lived hook process a page fault.
const (
	indexCacheName    = "route-index.bin"
	oldIndexCacheName = "route-index.gob" // formats up to 4, removed on write
	indexCacheVersion = 5
	indexMagic        = "MGROUTE\x00"
	indexKeyLen       = 64 // hex SHA-256
	indexHeaderLen    = 176
)

// docCacheHeader says what the documents and the snapshot after it were
// built from.
type docCacheHeader struct {
	Version int
	Key     string
	// IndexKey fingerprints the ranker settings the snapshot was taken with.
	IndexKey string
}

type docCache struct {
	docCacheHeader
	Docs  []ranker.Doc
	Index *ranker.Snapshot
}

// hookRouter builds the prompt hook's router like env.router does, from the
// compiled index when it is fresh. It holds guard until the compiled index
// is read or rebuilt and saved.
func hookRouter(e *env, guard cacheGuard) (*router, error) {
	rc := rankerConfig(e.cfg)
	c, err := hookDocs(e, guard, rc)
	if err != nil {
		return nil, err
	}
	sem := e.semanticFor(&app{errOut: discard{}}, c.Docs)
	rt, _ := newRouterFrom(c.Docs, rc, sem, e.cfg.DynamicK, c.Index)
	return rt, nil
}

// hookDocs returns the compiled index, rebuilding and saving it when the
// skills or the ranker settings changed. The documents have their bodies
// only when the configured format injects them (compose). The skills are
// fingerprinted on other goroutines while the compiled index is read: on
// two cores the stats and the read overlap.
func hookDocs(e *env, guard cacheGuard, rc ranker.Config) (docCache, error) {
	defer guard.hold()()
	type keyed struct {
		key string
		err error
	}
	kc := make(chan keyed, 1)
	go func() {
		key, err := indexKey(e.reg, e.cfg.Roots)
		kc <- keyed{key, err}
	}()
	rkey := rankerKey(rc)
	c, ok := readDocCache(e.reg, rkey, e.cfg.Route.Format == "compose")
	k := <-kc
	if k.err != nil {
		return docCache{}, k.err
	}
	fresh := ok && c.Key == k.key
	if fresh && c.Index != nil {
		return c, nil
	}
	// Parsing every SKILL.md and analysing every skill makes garbage,
	// unlike a warm call (see hookGC): collect it as usual meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if !fresh {
		skills, _, err := e.reg.Skills()
		if err != nil {
			return docCache{}, err
		}
		ledgers, err := e.reg.Ledgers()
		if err != nil {
			return docCache{}, err
		}
		c = docCache{docCacheHeader: docCacheHeader{Version: indexCacheVersion, Key: k.key}, Docs: skillDocs(skills, ledgers)}
	}
	c.IndexKey, c.Index = rkey, ranker.NewIndex(c.Docs, rc).Snapshot()
	writeDocCache(e.reg, c)
	return c, nil
}

// indexHeader is the compiled index's fixed header: magic, version, the
// document count, the two keys, the lengths of the three sections and a
// CRC-32 of the documents and snapshot and one of the bodies.
type indexHeader struct {
	version, docs               uint32
	key, rkey                   string
	docsLen, snapLen, bodiesLen uint64
	crcMain, crcBodies          uint32
}

// Offsets of the snapshot and the bodies in the file.
func (h indexHeader) snapOff() uint64   { return indexHeaderLen + align8(h.docsLen) }
func (h indexHeader) bodiesOff() uint64 { return h.snapOff() + h.snapLen }

func align8(n uint64) uint64 { return (n + 7) &^ 7 }

func (h indexHeader) append(b []byte) []byte {
	le := binary.LittleEndian
	b = append(b, indexMagic...)
	b = le.AppendUint32(b, h.version)
	b = le.AppendUint32(b, h.docs)
	b = append(b, h.key...)
	b = append(b, h.rkey...)
	b = le.AppendUint64(b, h.docsLen)
	b = le.AppendUint64(b, h.snapLen)
	b = le.AppendUint64(b, h.bodiesLen)
	b = le.AppendUint32(b, h.crcMain)
	return le.AppendUint32(b, h.crcBodies)
}

func parseIndexHeader(b []byte) (indexHeader, bool) {
	if len(b) < indexHeaderLen || string(b[:8]) != indexMagic {
		return indexHeader{}, false
	}
	le := binary.LittleEndian
	h := indexHeader{
		version: le.Uint32(b[8:]), docs: le.Uint32(b[12:]),
		key: string(b[16:80]), rkey: string(b[80:144]),
		docsLen: le.Uint64(b[144:]), snapLen: le.Uint64(b[152:]), bodiesLen: le.Uint64(b[160:]),
		crcMain: le.Uint32(b[168:]), crcBodies: le.Uint32(b[172:]),
	}
	return h, h.version == indexCacheVersion
}

// readDocCache reads the compiled index; ok means it is whole and of this
// format, and c.Key says which skills it was built from. Its snapshot is
// read too if it matches rkey (else nil), and the bodies when asked for or
// when the snapshot is to be rebuilt (the file is then written again).
func readDocCache(reg *registry.Registry, rkey string, bodies bool) (c docCache, ok bool) {
	f, err := os.Open(filepath.Join(reg.LocalDir(), indexCacheName))
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
	if err != nil || h.docsLen > uint64(st.Size()) || h.snapLen > uint64(st.Size()) || h.bodiesLen > uint64(st.Size()) ||
		h.bodiesOff()+h.bodiesLen != uint64(st.Size()) {
		return c, false
	}
	withIndex := h.rkey == rkey
	bodies = bodies || !withIndex
	need := h.bodiesOff()
	if bodies {
		need += h.bodiesLen
	}
	buf := mapIndex(f, need)
	if buf == nil {
		// One buffer, shared by the documents' strings and the snapshot's
		// tables; large allocations are page-aligned, as the snapshot wants.
		buf = make([]byte, need)
		copy(buf, hb[:])
		if _, err := io.ReadFull(f, buf[indexHeaderLen:]); err != nil {
			return c, false
		}
	}
	if crc32.ChecksumIEEE(buf[indexHeaderLen:h.bodiesOff()]) != h.crcMain {
		return c, false
	}
	docs, ok := decodeDocs(buf[indexHeaderLen:indexHeaderLen+h.docsLen], int(h.docs))
	if !ok {
		return c, false
	}
	c = docCache{docCacheHeader: docCacheHeader{Version: indexCacheVersion, Key: h.key, IndexKey: h.rkey}, Docs: docs}
	if withIndex {
		s, err := ranker.DecodeSnapshot(buf[h.snapOff():h.bodiesOff()])
		if err != nil {
			return docCache{}, false
		}
		c.Index = s
	}
	if bodies {
		b := buf[h.bodiesOff():]
		if crc32.ChecksumIEEE(b) != h.crcBodies || !decodeBodies(b, docs) {
			return docCache{}, false
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

// mapIndexFile says whether readDocCache may map the compiled index; set
// by the prompt hook's process.
var mapIndexFile atomic.Bool

// writeDocCache saves the compiled index; it is a cache, so failing to
// write it is not an error.
func writeDocCache(reg *registry.Registry, c docCache) {
	if len(c.Key) != indexKeyLen || len(c.IndexKey) != indexKeyLen || c.Index == nil || uint64(len(c.Docs)) > math.MaxUint32 {
		return
	}
	b := make([]byte, indexHeaderLen, 64<<10)
	b = appendDocs(b, c.Docs)
	docsLen := uint64(len(b) - indexHeaderLen)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	snapAt := len(b)
	b, err := c.Index.AppendBinary(b)
	if err != nil {
		return
	}
	bodiesAt := len(b)
	b = appendBodies(b, c.Docs)
	h := indexHeader{
		version: indexCacheVersion, docs: uint32(len(c.Docs)), key: c.Key, rkey: c.IndexKey,
		docsLen: docsLen, snapLen: uint64(bodiesAt - snapAt), bodiesLen: uint64(len(b) - bodiesAt),
		crcMain:   crc32.ChecksumIEEE(b[indexHeaderLen:bodiesAt]),
		crcBodies: crc32.ChecksumIEEE(b[bodiesAt:]),
	}
	h.append(b[:0])
	if reg.WriteLocalCache(indexCacheName, b) == nil {
		_ = os.Remove(filepath.Join(reg.LocalDir(), oldIndexCacheName))
	}
}

// appendDocs encodes the documents without their bodies: the total counts
// of list strings and related reasons, then per document its strings,
// string lists, counts, weight and related reasons.
func appendDocs(b []byte, docs []ranker.Doc) []byte {
	lists, related := 0, 0
	for _, d := range docs {
		lists += len(d.Headings) + len(d.Triggers) + len(d.HelpfulContexts) + len(d.HarmfulContexts)
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
		list(d.Headings)
		list(d.Triggers)
		list(d.HelpfulContexts)
		list(d.HarmfulContexts)
		b = binary.AppendVarint(b, int64(d.HelpfulCount))
		b = binary.AppendVarint(b, int64(d.HarmfulCount))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Weight))
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

func appendBodies(b []byte, docs []ranker.Doc) []byte {
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(len(d.Body)))
		b = append(b, d.Body...)
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
		d.Headings, d.Triggers = r.list(&pool), r.list(&pool)
		d.HelpfulContexts, d.HarmfulContexts = r.list(&pool), r.list(&pool)
		d.HelpfulCount, d.HarmfulCount = r.varint(), r.varint()
		if len(r.b) < 8 {
			return nil, false
		}
		d.Weight = math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
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

func decodeBodies(b []byte, docs []ranker.Doc) bool {
	r := &docReader{b: b}
	for i := range docs {
		docs[i].Body = r.str()
	}
	return !r.bad && len(r.b) == 0
}

// cacheGuard lets the deadline watcher wait for a cache write in progress.
// The worker holds it while it reads or rebuilds and saves the compiled
// index, so a first call that runs out of time (thousands of skills to
// parse) still leaves the index behind: otherwise every later call would redo
// the same work and time out too. A nil guard does nothing.
type cacheGuard chan struct{}

func newCacheGuard() cacheGuard { return make(cacheGuard, 1) }

// hold takes the guard and returns its release.
func (g cacheGuard) hold() func() {
	if g == nil {
		return func() {}
	}
	g <- struct{}{}
	return func() { <-g }
}

// wait takes the guard for good, once no cache is being written, or gives
// up after d; it reports whether it got the guard.
func (g cacheGuard) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case g <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// rankerKey fingerprints the ranker settings an index snapshot depends on
// (all of them, to stay safe as the ranker grows).
func rankerKey(rc ranker.Config) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d %#v", ranker.SnapshotVersion, rc)))
	return hex.EncodeToString(sum[:])
}

// indexKey fingerprints what the documents are built from: the stamp of
// every SKILL.md under the roots and of every ledger file. A file edited
// in place changes only its own stamp (not its folder's), so there is one
// stat per file; they are relative to the folder (a short path walk for
// the kernel) and run on a few goroutines, as at thousands of skills they
// are most of a warm hook call's system time.
func indexKey(reg *registry.Registry, roots []string) (string, error) {
	h := sha256.New()
	buf := fmt.Appendf(make([]byte, 0, 32<<10), "roots %s\n", strings.Join(roots, ":"))
	add := func(dir, file string) error {
		d, err := os.Open(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer d.Close()
		names, err := d.Readdirnames(-1)
		if err != nil {
			return err
		}
		slices.Sort(names)
		stamps := statAt(int(d.Fd()), names, file)
		for i, name := range names {
			if st := stamps[i]; st.ok {
				buf = append(append(append(append(buf, dir...), '/'), name...), file...)
				buf = st.append(append(buf, 0)) // no name holds a NUL
			}
			if len(buf) > 16<<10 {
				h.Write(buf)
				buf = buf[:0]
			}
		}
		return nil
	}
	for _, root := range roots {
		if err := add(filepath.Join(reg.Root(), filepath.FromSlash(root)), "/SKILL.md"); err != nil {
			return "", err
		}
	}
	if err := add(filepath.Join(reg.Root(), filepath.FromSlash(registry.LedgerDir)), ""); err != nil {
		return "", err
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stamp is what a stat says about a file's content without reading it;
// ok is false when it could not be stat'ed (a skill folder without
// SKILL.md). The change time and inode catch what size and modification
// time miss: an edit that keeps the size and puts the modification time
// back (the change time cannot be set), or another file moved in.
type stamp struct {
	size, mtime, ctime int64
	ino                uint64
	ok                 bool
}

func stampOf(st *unix.Stat_t) stamp {
	return stamp{
		size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, ok: true,
	}
}

func (s stamp) append(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(s.size))
	b = le.AppendUint64(b, uint64(s.mtime))
	b = le.AppendUint64(b, uint64(s.ctime))
	return le.AppendUint64(b, s.ino)
}

// statAll stats paths, in order.
func statAll(paths []string) []stamp {
	out := make([]stamp, len(paths))
	for i, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil {
			out[i] = stampOf(&st)
		}
	}
	return out
}

// statAt stats name+suffix for every name, relative to the directory dirfd,
// on up to one goroutine per core.
func statAt(dirfd int, names []string, suffix string) []stamp {
	out := make([]stamp, len(names))
	run := func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if unix.Fstatat(dirfd, names[i]+suffix, &st, 0) == nil {
				out[i] = stampOf(&st)
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(names)/256+1)
	var wg sync.WaitGroup
	per := (len(names) + workers - 1) / workers
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func(lo int) {
			defer wg.Done()
			run(lo, min(lo+per, len(names)))
		}(w * per)
	}
	run(0, min(per, len(names)))
	wg.Wait()
	return out
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
