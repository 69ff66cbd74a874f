package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

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
// The file format (a fixed header, the documents without their bodies, the
// snapshot's binary form and the bodies) and its reading and writing are in
// hook_index_codec.go.
const (
	indexCacheName    = "route-index.bin"
	oldIndexCacheName = "route-index.gob" // formats up to 4, removed on write
	indexCacheVersion = 5
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
