// Package index is the compiled route index: the file the prompt hook
// routes from (.megagit/local/route-index.bin), its format and codec,
// reading it (mapped, for the hook) and writing it, the stamps that say
// whether it is fresh, its refresh, and the stored vectors a semantic
// model scores with. It sits below the router (package route), which
// builds a Router from what it holds; like route it imports neither git
// nor the config reader.
package index

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
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
// and writing are in codec.go, each section's encoding in sections.go;
// the stamps and keys in stamps.go.
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
// from (Key, see SkillsKey; Quick, the quick stamp), the snapshot of their
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
		quick := quickStamp(root, roots)
		stamps, err := fileStamps(root, roots)
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
	if err := writeCompiled(dir, c); err != nil {
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
// (both sorted as fileStamps makes them, per folder): added, removed or
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
	go func() { qc <- quickStamp(root, roots) }()
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
