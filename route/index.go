package route

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

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/registry/local"
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
// index_codec.go.
const (
	// IndexFile is the compiled index's name in .megagit/local/.
	IndexFile         = "route-index.bin"
	oldIndexCacheName = "route-index.gob" // formats up to 4, removed on write
	indexCacheVersion = 5
)

// Compiled is the compiled index: the documents, what they were built
// from (Key, see SkillsKey) and the snapshot of their BM25F index with the
// ranker settings it was taken with (RankerKey; Index is nil when those
// differ from the settings asked for).
type Compiled struct {
	Key, RankerKey string
	Docs           []ranker.Doc
	Index          *ranker.Snapshot
}

// ErrStale means the compiled index is missing or out of date and the
// caller cannot rebuild it (the megagit-hook binary reads no SKILL.md).
var ErrStale = errors.New("compiled index out of date")

// Load returns the compiled index for the skills under root, rebuilding
// and saving it when the skills or the ranker settings changed: the
// documents through docs (nil: ErrStale instead), the snapshot here. The
// documents have their bodies only when asked for (the compose format
// injects them). The skills are fingerprinted on other goroutines while
// the compiled index is read: on two cores the stats and the read overlap.
func Load(dir local.Dir, root string, roots []string, rc ranker.Config, bodies bool, docs func() ([]ranker.Doc, error)) (Compiled, error) {
	type keyed struct {
		key string
		err error
	}
	kc := make(chan keyed, 1)
	go func() {
		key, err := SkillsKey(root, roots)
		kc <- keyed{key, err}
	}()
	rkey := RankerKey(rc)
	c, ok := ReadCompiled(dir, rkey, bodies)
	k := <-kc
	if k.err != nil {
		return Compiled{}, k.err
	}
	fresh := ok && c.Key == k.key
	if fresh && c.Index != nil {
		return c, nil
	}
	if !fresh && docs == nil {
		return Compiled{}, ErrStale
	}
	// Parsing every SKILL.md and analysing every skill makes garbage,
	// unlike a warm call (the prompt hook turns the collector off):
	// collect it as usual meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if !fresh {
		d, err := docs()
		if err != nil {
			return Compiled{}, err
		}
		c = Compiled{Key: k.key, Docs: d}
	}
	c.RankerKey, c.Index = rkey, ranker.NewIndex(c.Docs, rc).Snapshot()
	WriteCompiled(dir, c)
	return c, nil
}

// RankerKey fingerprints the ranker settings an index snapshot depends on
// (all of them, to stay safe as the ranker grows).
func RankerKey(rc ranker.Config) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d %#v", ranker.SnapshotVersion, rc)))
	return hex.EncodeToString(sum[:])
}

// SkillsKey fingerprints what the documents are built from: the stamp of
// every SKILL.md under the roots (folders of the registry at root) and of
// every ledger file. A file edited in place changes only its own stamp
// (not its folder's), so there is one
// stat per file; they are relative to the folder (a short path walk for
// the kernel) and run on a few goroutines, as at thousands of skills they
// are most of a warm hook call's system time.
func SkillsKey(root string, roots []string) (string, error) {
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
	for _, r := range roots {
		if err := add(filepath.Join(root, filepath.FromSlash(r)), "/SKILL.md"); err != nil {
			return "", err
		}
	}
	if err := add(filepath.Join(root, filepath.FromSlash(local.LedgerDir)), ""); err != nil {
		return "", err
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Stamp is what a stat says about a file's content without reading it;
// ok is false when it could not be stat'ed (a skill folder without
// SKILL.md). The change time and inode catch what size and modification
// time miss: an edit that keeps the size and puts the modification time
// back (the change time cannot be set), or another file moved in.
type Stamp struct {
	size, mtime, ctime int64
	ino                uint64
	ok                 bool
}

func stampOf(st *unix.Stat_t) Stamp {
	return Stamp{
		size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, ok: true,
	}
}

func (s Stamp) append(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(s.size))
	b = le.AppendUint64(b, uint64(s.mtime))
	b = le.AppendUint64(b, uint64(s.ctime))
	return le.AppendUint64(b, s.ino)
}

// StatAll stats paths, in order.
func StatAll(paths []string) []Stamp {
	out := make([]Stamp, len(paths))
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
func statAt(dirfd int, names []string, suffix string) []Stamp {
	out := make([]Stamp, len(names))
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

// String is the stamp in a form that can be stored and compared: "-" for
// a file that could not be stat'ed.
func (s Stamp) String() string {
	if !s.ok {
		return "-"
	}
	return fmt.Sprintf("%d.%d.%d.%d", s.size, s.mtime, s.ctime, s.ino)
}
