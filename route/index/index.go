// Package index is the compiled route index: the file the prompt hook
// routes from (.megagit/local/route-index.bin), its format and codec,
// reading it (mapped, for the hook) and writing it, the stamps that say
// whether it is fresh, its refresh, and the stored vectors a semantic
// model scores with. It sits below the router (package route), which
// builds a Router from what it holds; like route it imports neither git
// nor the config reader.
package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"golang.org/x/sys/unix"
)

// The compiled route index: the ranker documents of every skill, a
// snapshot of their BM25F index and the active model's vectors of every
// skill, in .megagit/local/route-index.bin. Two keys say what it was
// built from:
//
//   - Key: the stamp (size, times, inode) of every SKILL.md and ledger
//     file; checking it costs a stat per skill, so only Refresh (megagit
//     route, why, serve, index, and the background refresh the prompt
//     hook starts) checks it;
//   - Quick: a handful of stats that change with most edits (a skill
//     added or removed, a commit, a ledger written through git); the
//     prompt hook checks only this, answers from the index it has, and
//     refreshes it in the background after answering, so its cost does
//     not grow with the catalog and a stale index never makes it silent.
//
// The snapshot is also keyed by the ranker settings (RankerKey) and the
// vectors by the model build that made them (Vectors.Key).
//
// The file format (a fixed header, the documents without their bodies,
// the snapshot's binary form, the vectors and the bodies) and its reading
// and writing are in codec.go.
const (
	// IndexFile is the compiled index's name in .megagit/local/.
	IndexFile         = "route-index.bin"
	oldIndexCacheName = "route-index.gob" // formats up to 4, removed on write
	indexCacheVersion = 16                // 16: a held-back skill's reason; 15: prompts learnt from history; 14: the fallback vectors; 13: skill text cleaned (safetext.Injected); 12: a doc's paths globs, user-only skills left out; 11: verdict reasons' vectors; 10: silence and evidence age; 9: context vectors; 8: a doc's description includes when_to_use
	// checkedFile's modification time is when Refresh last compared the
	// compiled index with every skill.
	checkedFile = "route-index.checked"
	// RefreshLock serialises refreshes of the compiled index.
	RefreshLock = "route-index.lock"
)

// Compiled is the compiled index: the documents, what they were built
// from (Key, see SkillsKey; Quick, see QuickStamp), the snapshot of their
// BM25F index with the ranker settings it was taken with (RankerKey;
// Index is nil when those differ from the settings asked for) and the
// model's vectors (nil: none, or not asked for).
type Compiled struct {
	Key, RankerKey, Quick string
	Docs                  []ranker.Doc
	Index                 *ranker.Snapshot
	Vectors               *Vectors
	// Fallback are the vectors of the model the prompt hook routes with
	// until the configured one's `megagit serve` answers (the built-in
	// model's, for an ONNX model; nil: none, or not asked for).
	Fallback *Vectors
	// Stamps are the files the documents were built from (read only when
	// wanted), so a refresh re-reads only the skills whose files changed.
	Stamps []FileStamp
	// bodyTerms are the documents' body terms as read with the bodies,
	// decoded only for a rebuild (keptBodyTerms).
	bodyTerms []byte
}

// keptBodyTerms sets the documents' body terms from the index they were
// read from, when it held them and they decode; documents without them
// have theirs read from their bodies.
func (c *Compiled) keptBodyTerms() {
	if c.bodyTerms != nil && !decodeBodyTerms(c.bodyTerms, c.Docs) {
		for i := range c.Docs {
			c.Docs[i].BodyTerms = nil
		}
	}
	c.bodyTerms = nil
}

// reuseBodyTerms gives each document without body terms those of the
// last build's document of the same skill, when its body has not changed:
// however the documents were read again (only the changed skills, or all
// of them after a skill came or went), only changed bodies are read.
func reuseBodyTerms(docs, old []ranker.Doc) {
	at := make(map[string]int, len(old))
	for i, d := range old {
		at[d.ID] = i
	}
	for i, d := range docs {
		if j, ok := at[d.ID]; ok && d.BodyTerms == nil && old[j].BodyTerms != nil && old[j].Body == d.Body {
			docs[i].BodyTerms = old[j].BodyTerms
		}
	}
}

// ErrStale means the compiled index is missing or out of date and the
// caller cannot rebuild it (the megagit-hook binary reads no SKILL.md).
var ErrStale = errors.New("compiled index out of date")

// Source is how Refresh rebuilds what changed: Docs reads every skill;
// Update (nil: always Docs) re-reads only the skills whose files changed,
// given the last build, the new skills key and the paths of the files
// added, removed or edited (relative to the registry), or says ok = false
// when only a full read will do; Vectors embeds documents with the active model
// (nil: none), VecKey being that model's key (Vectors.Key), "" for lexical
// routing. NoBodies says the caller renders no skill's body: when nothing
// changed, the bodies are then left unread (the documents' Body is ""):
// with them and their kept terms go about three quarters of a large
// index's bytes. FallbackKey and Fallback are VecKey and Vectors of the
// fallback model (Compiled.Fallback; "": none).
type Source struct {
	Docs        func() ([]ranker.Doc, error)
	Update      func(old Compiled, key string, changed []string) (docs []ranker.Doc, ok bool)
	VecKey      string
	Vectors     func(docs []ranker.Doc) (*Vectors, error)
	FallbackKey string
	Fallback    func(docs []ranker.Doc) (*Vectors, error)
	NoBodies    bool
}

// Refresh returns the compiled index for the skills under root, first
// comparing it with every skill and rebuilding what changed: the
// documents of the skills whose files changed (Source.Update, else all of
// them), the snapshot (when they or the ranker settings changed) and the
// vectors of the documents whose texts changed (all of them when the
// model did; a failure to embed leaves the index without vectors and is
// returned as vecErr: routing stays lexical). An index that cannot be
// written (ErrNotSaved: a full disk, say) is returned whole with that
// error. The skills are stat'ed on
// another goroutine while the compiled index is read: on two cores the
// stats and the read overlap.
func Refresh(dir local.Dir, root string, roots []string, rc ranker.Config, src Source) (c Compiled, vecErr error, err error) {
	type keyed struct {
		quick  string
		stamps []FileStamp
		err    error
	}
	kc := make(chan keyed, 1)
	go func() {
		// The quick stamp first: an edit meanwhile then shows to the
		// next prompt hook as a stale quick stamp.
		quick := QuickStamp(root, roots)
		stamps, err := FileStamps(root, roots)
		kc <- keyed{quick, stamps, err}
	}()
	rkey := RankerKey(rc)
	// The stamps of the last build matter only to a rebuild (which files
	// changed), read below when one follows.
	want := Want{Bodies: !src.NoBodies, Vectors: src.VecKey != "", Fallback: src.FallbackKey != ""}
	c, ok := ReadCompiled(dir, rkey, want)
	k := <-kc
	if k.err != nil {
		return Compiled{}, nil, k.err
	}
	key := keyOf(roots, k.stamps)
	defer markChecked(dir)
	var fresh, vecsFresh, fbFresh bool
	for {
		fresh = ok && c.Key == key
		vecsFresh = holds(c.Vectors, src.VecKey)
		fbFresh = holds(c.Fallback, src.FallbackKey)
		if fresh && c.Index != nil && vecsFresh && fbFresh && c.Quick == k.quick {
			return c, nil, nil
		}
		if !ok || want.Bodies && want.Stamps {
			break
		}
		// A rebuild and a write follow: both keep the bodies (and their
		// terms) of the skills that did not change, and the stamps say
		// which changed, so read them after all.
		want.Bodies, want.Stamps = true, true
		c, ok = ReadCompiled(dir, rkey, want)
	}
	// Parsing SKILL.md files and analysing every skill makes garbage,
	// unlike a warm call (the prompt hook turns the collector off):
	// collect it as usual meanwhile.
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	old := c
	if ok {
		c.keptBodyTerms() // a rebuild follows: keep what the last one read
	}
	if !fresh {
		var docs []ranker.Doc
		updated := false
		if ok && src.Update != nil {
			docs, updated = src.Update(c, key, changedFiles(c.Stamps, k.stamps))
		}
		if !updated {
			if docs, err = src.Docs(); err != nil {
				return Compiled{}, nil, err
			}
		}
		c = Compiled{Key: key, Docs: docs}
		reuseBodyTerms(c.Docs, old.Docs)
	}
	c.Stamps = k.stamps
	snapshotted := c.Index == nil
	if snapshotted {
		if rc.Fields.Body.Weight > 0 {
			ranker.FillBodyTerms(c.Docs) // kept with the documents for the next rebuild
		}
		c.RankerKey, c.Index = rkey, ranker.NewIndex(c.Docs, rc).Snapshot()
	}
	if c.Vectors == nil || !fresh || !vecsFresh {
		c.Vectors, vecErr = nil, nil
		if src.VecKey != "" && src.Vectors != nil {
			var prev *Vectors
			if vecsFresh {
				prev = old.Vectors
			}
			c.Vectors, vecErr = vectorsFor(c.Docs, old.Docs, prev, src.VecKey, src.Vectors)
		}
	}
	if c.Fallback == nil || !fresh || !fbFresh {
		c.Fallback = nil
		if src.FallbackKey != "" && src.Fallback != nil {
			var prev *Vectors
			if fbFresh {
				prev = old.Fallback
			}
			// A fallback that cannot be embedded leaves the prompt hook
			// routing lexically until the server answers; the configured
			// model's error is the one to report.
			c.Fallback, _ = vectorsFor(c.Docs, old.Docs, prev, src.FallbackKey, src.Fallback)
		}
	}
	if fresh && !snapshotted && c.Quick == k.quick && c.Vectors == nil && old.Vectors == nil &&
		fbFresh && (c.Fallback == nil) == (old.Fallback == nil) {
		return c, vecErr, nil // only the embedding failed, again: nothing new to save
	}
	c.Quick = k.quick
	if err := WriteCompiled(dir, c); err != nil {
		return c, vecErr, err // c is whole: the caller may route with it
	}
	return c, vecErr, nil
}

// holds says whether v are the vectors of the model keyed key ("": none
// wanted, and none held).
func holds(v *Vectors, key string) bool {
	return key == "" && v == nil || key != "" && v != nil && v.Key == key
}

// vectorsFor is the vectors of docs of the model keyed key: the rows of
// the last build (prev, of the same model, over oldDocs) for every
// document whose texts are unchanged, the rest embedded through embed. A
// document's vectors depend on its id and description only
// (dense.DocTexts).
func vectorsFor(docs, oldDocs []ranker.Doc, prev *Vectors, key string, embed func([]ranker.Doc) (*Vectors, error)) (*Vectors, error) {
	at := map[vecKey]int{}
	if prev != nil && prev.Docs() == len(oldDocs) {
		for i, d := range oldDocs {
			at[vecKeyOf(d)] = i
		}
	}
	var missing []ranker.Doc
	var where []int
	for i, d := range docs {
		if _, ok := at[vecKeyOf(d)]; !ok {
			missing, where = append(missing, d), append(where, i)
		}
	}
	var fresh *Vectors
	if len(missing) > 0 || len(docs) == 0 {
		v, err := embed(missing)
		if err != nil || v == nil {
			return nil, err
		}
		if v.Key != key || v.Docs() != len(missing) && len(missing) > 0 {
			return nil, fmt.Errorf("vectors of %s for %d skills, want %s for %d", v.Key, v.Docs(), key, len(missing))
		}
		fresh = v
	}
	dim := 0
	switch {
	case fresh != nil:
		dim = fresh.Dim
	case prev != nil:
		dim = prev.Dim
	}
	out := &Vectors{Key: key, Dim: dim, Rows: make([]float32, 0, 2*dim*len(docs))}
	freshCtx, prevCtx := fresh.ctxByDoc(), prev.ctxByDoc()
	j := 0
	for i, d := range docs {
		from, o, ctx := prev, 0, prevCtx
		if j < len(where) && where[j] == i {
			from, o, ctx = fresh, j, freshCtx
			j++
		} else {
			o = at[vecKeyOf(d)]
		}
		out.Rows = append(out.Rows, from.Rows[2*dim*o:2*dim*(o+1)]...)
		for _, k := range ctx[int32(o)] {
			out.Ctx = append(out.Ctx, CtxRow{Doc: int32(i), Harm: from.Ctx[k].Harm, Reason: from.Ctx[k].Reason, Learnt: from.Ctx[k].Learnt})
			out.CtxRows = append(out.CtxRows, from.CtxRows[k*dim:(k+1)*dim]...)
		}
	}
	return out, nil
}

// vecKey is what a document's vectors are made from: a document whose key
// is unchanged keeps its rows.
type vecKey struct{ id, desc, contexts string }

func vecKeyOf(d ranker.Doc) vecKey {
	var b strings.Builder
	b.WriteString(strings.Join(d.HelpfulContexts, "\x00") + "\x01" + strings.Join(d.HarmfulContexts, "\x00") + "\x03" + strings.Join(d.Learnt, "\x00"))
	for _, r := range d.Related {
		if r.Helpful {
			b.WriteString("\x02+")
		} else {
			b.WriteString("\x02-")
		}
		b.WriteString(r.Text)
	}
	return vecKey{d.ID, d.Description, b.String()}
}

// ctxByDoc is, per document, the indices of its context rows.
func (v *Vectors) ctxByDoc() map[int32][]int {
	if v == nil {
		return nil
	}
	out := map[int32][]int{}
	for k, c := range v.Ctx {
		if (k+1)*v.Dim <= len(v.CtxRows) {
			out[c.Doc] = append(out[c.Doc], k)
		}
	}
	return out
}

// changedFiles are the paths whose stamps differ between two stampings
// (both sorted as FileStamps makes them, per folder): added, removed or
// edited files.
func changedFiles(old, cur []FileStamp) []string {
	was := make(map[string]Stamp, len(old))
	for _, f := range old {
		was[f.Path] = f.Stamp
	}
	var out []string
	for _, f := range cur {
		if st, ok := was[f.Path]; !ok || st != f.Stamp {
			out = append(out, f.Path)
		}
		delete(was, f.Path)
	}
	for p := range was {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Open reads the compiled index as the prompt hook does, without a stat
// per skill: ok is false when there is none this call can use (missing,
// damaged, another format or other ranker settings), and stale says the
// quick stamp shows the skills changed since it was built.
func Open(dir local.Dir, root string, roots []string, rc ranker.Config, want Want) (c Compiled, stale, ok bool) {
	qc := make(chan string, 1)
	go func() { qc <- QuickStamp(root, roots) }()
	c, ok = ReadCompiled(dir, RankerKey(rc), want)
	quick := <-qc
	if !ok || c.Index == nil {
		return Compiled{}, false, false
	}
	return c, c.Quick != quick, true
}

// CheckedAgo is how long ago Refresh last compared the compiled index
// with every skill (a long time when never, or when the clock says it is
// yet to come: a clock set back must not stop the checks).
func CheckedAgo(dir local.Dir, now time.Time) time.Duration {
	st, err := os.Stat(filepath.Join(dir.Path(), checkedFile))
	if err != nil || st.ModTime().After(now) {
		return math.MaxInt64
	}
	return now.Sub(st.ModTime())
}

func markChecked(dir local.Dir) { _ = dir.WriteCache(checkedFile, nil) }

// QuickStamp fingerprints what changes with most edits of a registry
// without a stat per skill: the skill roots' folders (a skill added,
// removed or renamed), the ledger folder, and git's HEAD, current branch
// ref (and the registry's own branch, in the ref layout) and index (a
// commit, a checkout, a merge). An edit in place of one
// SKILL.md is not in it: Refresh's full check sees that.
func QuickStamp(root string, roots []string) string {
	paths := make([]string, 0, len(roots)+6)
	for _, r := range roots {
		if strings.HasPrefix(r, checkMark) {
			continue
		}
		dir, _ := rootDir(root, r)
		paths = append(paths, dir)
	}
	paths = append(paths, filepath.Join(root, filepath.FromSlash(local.LedgerDir)))
	gitDir := filepath.Join(root, ".git")
	if b, err := os.ReadFile(gitDir); err == nil { // a worktree's .git file
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			gitDir = d
		}
	}
	// Branches and packed-refs live in the shared git folder, which a
	// linked worktree's commondir file names.
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil && strings.TrimSpace(string(b)) != "" {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	head, _ := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	paths = append(paths, filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "index"), filepath.Join(common, "packed-refs"))
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && !strings.Contains(ref, "..") {
		paths = append(paths, filepath.Join(common, filepath.FromSlash(ref)))
	}
	// A registry kept on its own branch beside a project's: that branch.
	if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(local.RefFile))); err == nil {
		if ref := strings.TrimSpace(string(b)); strings.HasPrefix(ref, "refs/heads/") && !strings.Contains(ref, "..") {
			paths = append(paths, filepath.Join(common, filepath.FromSlash(ref)))
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "roots %s\nhead %s\n", strings.Join(roots, ":"), head)
	for i, st := range StatAll(paths) {
		fmt.Fprintf(h, "%s %s\n", paths[i], st)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RankerKey fingerprints the ranker settings an index snapshot depends on
// (all of them, to stay safe as the ranker grows).
func RankerKey(rc ranker.Config) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d %#v", ranker.SnapshotVersion, rc)))
	return hex.EncodeToString(sum[:])
}

// SkillsKey fingerprints what the documents are built from: the stamp of
// every SKILL.md under the roots (folders of the registry at root) and of
// every ledger file (see FileStamps).
func SkillsKey(root string, roots []string) (string, error) {
	fs, err := FileStamps(root, roots)
	if err != nil {
		return "", err
	}
	return keyOf(roots, fs), nil
}

// keyOf is SkillsKey of stamps taken under roots.
func keyOf(roots []string, fs []FileStamp) string {
	h := sha256.New()
	buf := fmt.Appendf(make([]byte, 0, 32<<10), "roots %s\n", strings.Join(roots, ":"))
	for _, f := range fs {
		buf = f.Stamp.append(append(append(buf, f.Path...), 0)) // no name holds a NUL
		if len(buf) > 16<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// FileStamp is one file the documents are built from, by its path
// relative to the registry, and its stamp.
type FileStamp struct {
	Path  string
	Stamp Stamp
}

// FileStamps stats every SKILL.md under the roots and every ledger file,
// in a fixed order. A file edited in place changes only its own stamp (not
// its folder's), so there is one stat per file; they are relative to the
// folder (a short path walk for the kernel) and run on a few goroutines,
// as at thousands of skills they are most of a full check's system time.
func FileStamps(root string, roots []string) ([]FileStamp, error) {
	var out []FileStamp
	add := func(r, file string) error {
		dir, rel := rootDir(root, r)
		if strings.HasPrefix(r, ledgerMark) {
			file = ""
		}
		d, err := os.Open(dir)
		if errors.Is(err, os.ErrNotExist) || err != nil && filepath.IsAbs(rel) {
			return nil // a folder outside the registry that cannot be read holds no skill megagit reads
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
				out = append(out, FileStamp{Path: rel + "/" + name + file, Stamp: st})
			}
		}
		return nil
	}
	for _, r := range roots {
		f, ok := strings.CutPrefix(r, fileMark)
		if !ok {
			f, ok = strings.CutPrefix(r, checkMark)
		}
		if ok {
			if st := StatAll([]string{f})[0]; st.ok {
				out = append(out, FileStamp{Path: f, Stamp: st})
			}
			continue
		}
		if err := add(r, "/SKILL.md"); err != nil {
			return nil, err
		}
		// Codex's policy beside a SKILL.md decides whether it is routed.
		if err := add(r, "/agents/openai.yaml"); err != nil {
			return nil, err
		}
	}
	if err := add(local.LedgerDir, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// LedgerRoot names, among the roots Refresh, Open and FileStamps take, a
// folder of ledger files outside the registry (absolute), whose every
// file the documents depend on. Any other absolute root is a folder of
// skills outside the registry (<dir>/<name>/SKILL.md); a relative one is
// a folder of skills in it.
func LedgerRoot(dir string) string { return ledgerMark + dir }

const ledgerMark = "ledger:"

// FileRoot names, among the roots, one file the documents depend on (an
// agent's settings file that turns skills off, the record of Claude
// Code's installed plugins), absolute.
func FileRoot(file string) string { return fileMark + file }

const fileMark = "file:"

// CheckRoot is a FileRoot that only the full check (FileStamps) stats, not
// QuickStamp, which the prompt hook runs on every prompt: a file whose
// edit in place the hook's background check after the prompt finds soon
// enough (an installed skill's files, of which there may be many).
func CheckRoot(file string) string { return checkMark + file }

const checkMark = "check:"

// RootDir is where a root (see LedgerRoot, FileRoot) is on disk, and
// whether it is a folder of ledgers or a file rather than a folder of
// skills.
func RootDir(root, r string) (dir string, notSkills bool) {
	dir, _ = rootDir(root, r)
	return dir, strings.HasPrefix(r, ledgerMark) || strings.HasPrefix(r, fileMark) || strings.HasPrefix(r, checkMark)
}

// rootDir is where a root is on disk, and how its files are named in the
// stamps: a relative root by its registry-relative path, an absolute one
// or a ledger root by its absolute path.
func rootDir(root, r string) (dir, name string) {
	if d, ok := strings.CutPrefix(r, ledgerMark); ok {
		return d, d
	}
	if f, ok := strings.CutPrefix(r, fileMark); ok {
		return f, f
	}
	if f, ok := strings.CutPrefix(r, checkMark); ok {
		return f, f
	}
	if filepath.IsAbs(r) {
		return r, r
	}
	return filepath.Join(root, filepath.FromSlash(r)), r
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
