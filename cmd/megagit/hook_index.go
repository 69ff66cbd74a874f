package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry"
)

// The prompt hook's compiled index: the ranker documents of every skill
// and a snapshot of their BM25F index, in .megagit/local/route-index.gob.
// The documents are keyed by the path, size and modification time of every
// SKILL.md and ledger file (and the skill roots), so a hook call skips
// parsing SKILL.md files unless one changed; the snapshot is also keyed by
// the ranker settings, so a hook call skips tokenising and stemming every
// skill unless the skills or settings changed.
//
// The file is a gob stream of four values: the header, the documents
// without their bodies, the snapshot and the bodies. A stale header stops
// the read before the rest, the bodies (most of a real skill's bytes) are
// read only for the compose format, the one that injects them, and no one
// value reaches gob's 10 MB read chunk below ~15,000 skills, past which
// gob copies a message twice.
const (
	indexCacheName    = "route-index.gob"
	indexCacheVersion = 4
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
// only when the configured format injects them (compose).
func hookDocs(e *env, guard cacheGuard, rc ranker.Config) (docCache, error) {
	defer guard.hold()()
	key, err := indexKey(e.reg, e.cfg.Roots)
	if err != nil {
		return docCache{}, err
	}
	rkey := rankerKey(rc)
	c, fresh := readDocCache(e.reg, key, rkey, e.cfg.Route.Format == "compose")
	if fresh && c.Index != nil {
		return c, nil
	}
	if !fresh {
		skills, _, err := e.reg.Skills()
		if err != nil {
			return c, err
		}
		ledgers, err := e.reg.Ledgers()
		if err != nil {
			return c, err
		}
		c = docCache{docCacheHeader: docCacheHeader{Version: indexCacheVersion, Key: key}, Docs: skillDocs(skills, ledgers)}
	}
	c.IndexKey, c.Index = rkey, ranker.NewIndex(c.Docs, rc).Snapshot()
	writeDocCache(e.reg, c)
	return c, nil
}

// readDocCache reads the compiled index; fresh means its documents match
// key. Its snapshot is read too if it matches rkey (else nil), and the
// bodies when asked for or when the snapshot is to be rebuilt (the file is
// then written again). It decodes straight from the file: at thousands of
// skills, every copy of its megabytes shows in the hook's latency.
func readDocCache(reg *registry.Registry, key, rkey string, bodies bool) (c docCache, fresh bool) {
	f, err := os.Open(filepath.Join(reg.LocalDir(), indexCacheName))
	if err != nil {
		return c, false
	}
	defer f.Close()
	dec := gob.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	if dec.Decode(&c.docCacheHeader) != nil || c.Version != indexCacheVersion || c.Key != key {
		return docCache{}, false
	}
	if dec.Decode(&c.Docs) != nil {
		return docCache{}, false
	}
	var s ranker.Snapshot
	if dec.Decode(&s) != nil {
		return docCache{}, false
	}
	if c.IndexKey == rkey {
		c.Index = &s
	}
	if bodies || c.Index == nil {
		var b []string
		if dec.Decode(&b) != nil || len(b) != len(c.Docs) {
			return docCache{}, false
		}
		for i := range c.Docs {
			c.Docs[i].Body = b[i]
		}
	}
	return c, true
}

// writeDocCache saves the compiled index; it is a cache, so failing to
// write it is not an error.
func writeDocCache(reg *registry.Registry, c docCache) {
	docs := make([]ranker.Doc, len(c.Docs))
	bodies := make([]string, len(c.Docs))
	for i, d := range c.Docs {
		bodies[i] = d.Body
		d.Body = ""
		docs[i] = d
	}
	var b bytes.Buffer
	enc := gob.NewEncoder(&b)
	if enc.Encode(c.docCacheHeader) == nil && enc.Encode(docs) == nil && enc.Encode(c.Index) == nil && enc.Encode(bodies) == nil {
		_ = reg.WriteLocalCache(indexCacheName, b.Bytes())
	}
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

// indexKey fingerprints what the documents are built from. The stats run
// on a few goroutines: at thousands of skills they are most of a warm hook
// call, and each one is a blocking system call.
func indexKey(reg *registry.Registry, roots []string) (string, error) {
	list := func(dir string) ([]string, error) {
		ents, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			return nil, nil
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return names, err
	}
	var paths []string
	for _, root := range roots {
		dir := filepath.Join(reg.Root(), filepath.FromSlash(root))
		names, err := list(dir)
		if err != nil {
			return "", err
		}
		for _, n := range names {
			paths = append(paths, filepath.Join(dir, n, "SKILL.md"))
		}
	}
	ledger := filepath.Join(reg.Root(), filepath.FromSlash(registry.LedgerDir))
	names, err := list(ledger)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		paths = append(paths, filepath.Join(ledger, n))
	}
	stamps := statAll(paths)
	h := sha256.New()
	fmt.Fprintf(h, "roots %s\n", strings.Join(roots, ":"))
	for i, p := range paths {
		if st := stamps[i]; st.ok {
			fmt.Fprintf(h, "%s %d %d\n", p, st.size, st.mtime)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stamp is one file's size and modification time; ok is false when it
// could not be stat'ed (a skill folder without SKILL.md).
type stamp struct {
	size, mtime int64
	ok          bool
}

// statAll stats paths concurrently, in order.
func statAll(paths []string) []stamp {
	out := make([]stamp, len(paths))
	workers := min(runtime.GOMAXPROCS(0)*2, len(paths)/256+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				if st, err := os.Stat(paths[i]); err == nil {
					out[i] = stamp{size: st.Size(), mtime: st.ModTime().UnixNano(), ok: true}
				}
			}
		}(w)
	}
	wg.Wait()
	return out
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
