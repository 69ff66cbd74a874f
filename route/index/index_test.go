package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
)

// fullDoc is a document with every field set, so a field the compiled
// index forgets shows in a round trip.
func fullDoc(i int) ranker.Doc {
	d := ranker.Doc{
		ID: fmt.Sprintf("skill-%d", i), Path: fmt.Sprintf("skills/skill-%d/SKILL.md", i), Description: "Speed up docker builds. Use when slow.",
		Headings: []string{"Steps", "Gotchas"}, Triggers: []string{"Use when slow."}, Body: "# Steps\n1. cache\n",
		BodyTerms:       []ranker.TermCount{{Term: "cach", N: 1}, {Term: "step", N: 1}},
		HelpfulContexts: []string{"docker build slow"}, HarmfulContexts: []string{"kubernetes", ""}, Paths: []string{"src/**/*.go"},
		HelpfulCount: 3 + i, HarmfulCount: -1, Status: "suspect", Weight: 1.25, Silence: 0.75, Updated: 1764000000 + int64(i),
		Related: []ranker.Reason{{Text: "found it", Helpful: true}, {Text: "wrong tool"}},
		Learnt:  []string{"my docker builds take forever"}, LearntUpdated: 1763000000 + int64(i),
		Held: []string{"secret-exfil", "lock-drift"},
	}
	v := reflect.ValueOf(d)
	for k := 0; k < v.NumField(); k++ {
		if v.Field(k).IsZero() {
			panic("fullDoc leaves " + v.Type().Field(k).Name + " unset")
		}
	}
	return d
}

// TestDocCodec checks the documents and bodies survive the compiled
// index's encoding, and that a damaged encoding is refused, never a panic.
func TestDocCodec(t *testing.T) {
	docs := []ranker.Doc{fullDoc(0), {ID: "bare"}, fullDoc(2)}
	enc := appendDocs(nil, docs)
	bodies := appendBodies(nil, docs)
	got, ok := decodeDocs(enc, len(docs))
	terms, tok := decodeBodies(bodies, got)
	if !ok || !tok || !decodeBodyTerms(terms, got) {
		t.Fatal("decoding failed")
	}
	if !reflect.DeepEqual(got, docs) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, docs)
	}
	if _, ok := decodeDocs(enc, len(docs)+1); ok {
		t.Fatal("decoded more documents than encoded")
	}
	for n := 0; n < len(enc); n++ {
		if _, ok := decodeDocs(enc[:n], len(docs)); ok {
			t.Fatalf("decoded a truncated encoding (%d of %d bytes)", n, len(enc))
		}
	}
	for i := range enc {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			b := append([]byte(nil), enc...)
			b[i] = v
			if docs, ok := decodeDocs(b, 3); ok {
				decodeBodies(bodies, docs)
			}
		}
	}
	// The bodies and their terms: a cut is refused, damage never panics.
	decodeAll := func(b []byte) bool {
		ds := slices.Clone(got)
		terms, ok := decodeBodies(b, ds)
		return ok && decodeBodyTerms(terms, ds)
	}
	for n := 0; n < len(bodies); n++ {
		if decodeAll(bodies[:n]) {
			t.Fatalf("decoded truncated bodies (%d of %d bytes)", n, len(bodies))
		}
	}
	for i := range bodies {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			b := append([]byte(nil), bodies...)
			b[i] = v
			decodeAll(b)
		}
	}
}

// TestReadCompiledDamaged checks a damaged compiled index is read as
// missing (then rebuilt), never as something else and never a panic.
func TestReadCompiledDamaged(t *testing.T) {
	reg := local.Open(t.TempDir(), time.Second)
	docs := []ranker.Doc{fullDoc(0), fullDoc(1)}
	rc := ranker.DefaultConfig()
	key, rkey := strings.Repeat("a", indexKeyLen), RankerKey(rc)
	vecs := &Vectors{Key: "model@1", Dim: 3, Rows: []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 0.6, 0.8, 0}}
	fb := &Vectors{Key: "builtin@1", Dim: 2, Rows: []float32{1, 0, 0, 1, 0.6, 0.8, 0.8, 0.6}}
	stamps := []FileStamp{{Path: "skills/skill-0/SKILL.md", Stamp: Stamp{size: 1, mtime: 2, ctime: 3, ino: 4, ok: true}}}
	writeCompiled(reg, Compiled{Key: key, RankerKey: rkey, Quick: strings.Repeat("b", indexKeyLen), Docs: docs,
		Index: ranker.NewIndex(docs, rc).Snapshot(), Vectors: vecs, Fallback: fb, Stamps: stamps})
	p := filepath.Join(reg.Path(), IndexFile)
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		mapIndexFile.Store(mapped)
		c, ok := ReadCompiled(reg, rkey, Want{Bodies: true, Vectors: true, Fallback: true, Stamps: true})
		if c.Docs[0].BodyTerms != nil {
			t.Fatalf("mapped=%v: body terms decoded for a reader that may not rebuild", mapped)
		}
		c.keptBodyTerms()
		if !ok || c.Key != key || c.Index == nil || !reflect.DeepEqual(c.Docs, docs) || !reflect.DeepEqual(c.Vectors, vecs) || !reflect.DeepEqual(c.Fallback, fb) || !reflect.DeepEqual(c.Stamps, stamps) {
			t.Fatalf("mapped=%v: the compiled index does not read back: ok=%v %+v", mapped, ok, c.Key)
		}
		// Each set of vectors is read alone, as the prompt hook asks.
		if c, ok := ReadCompiled(reg, rkey, Want{Fallback: true}); !ok || c.Vectors != nil || !reflect.DeepEqual(c.Fallback, fb) {
			t.Fatalf("mapped=%v: the fallback vectors alone: ok=%v %+v %+v", mapped, ok, c.Vectors, c.Fallback)
		}
		if c, ok := ReadCompiled(reg, rkey, Want{Vectors: true}); !ok || c.Fallback != nil || !reflect.DeepEqual(c.Vectors, vecs) {
			t.Fatalf("mapped=%v: the vectors alone: ok=%v %+v %+v", mapped, ok, c.Vectors, c.Fallback)
		}
		if c, ok := ReadCompiled(reg, "other settings", Want{}); !ok || c.Index != nil || c.Docs[0].Body == "" {
			t.Fatalf("mapped=%v: other ranker settings: ok=%v, index %v, bodies %q", mapped, ok, c.Index != nil, c.Docs[0].Body)
		}
	}
	mapIndexFile.Store(false)
	h, _ := parseIndexHeader(good)
	// damage writes b and checks it is refused; with onlyBodies, only when
	// the bodies are read (a call without them never looks at them).
	damage := func(name string, b []byte, onlyBodies bool) {
		t.Helper()
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, bodies := range []bool{false, true} {
			if _, ok := ReadCompiled(reg, rkey, Want{Bodies: bodies, Vectors: bodies, Fallback: bodies, Stamps: bodies}); ok && (bodies || !onlyBodies) {
				t.Fatalf("%s: a damaged compiled index was read (bodies=%v)", name, bodies)
			}
		}
	}
	for n := 0; n < len(good); n += 7 {
		damage(fmt.Sprintf("truncated to %d", n), good[:n], false)
	}
	for i := range good {
		if i >= 16 && i < 208 || i >= 276 && i < indexHeaderLen || padding(h, uint64(i)) {
			continue // a key: read fine, then found stale; or padding
		}
		b := append([]byte(nil), good...)
		b[i] ^= 0x5a
		// Damaged vectors are refused when read: the test reads them with
		// the bodies.
		onlyBodies := i >= 244 && i < 256 || i >= 272 && i < 276 || uint64(i) >= h.vecOff()
		damage(fmt.Sprintf("byte %d altered", i), b, onlyBodies)
	}
}

// padding says whether byte i of a compiled index is padding between
// sections, which no reader looks at.
func padding(h indexHeader, i uint64) bool {
	ends := [][2]uint64{
		{indexHeaderLen + h.docsLen, h.snapOff()},
		{h.snapOff() + h.snapLen, h.vecOff()},
		{h.vecOff() + h.vecLen, h.fbOff()},
		{h.fbOff() + h.fbLen, h.bodiesOff()},
		{h.bodiesOff() + h.bodiesLen, h.stampsOff()},
	}
	for _, e := range ends {
		if i >= e[0] && i < e[1] {
			return true
		}
	}
	return false
}

// CheckedAgo tells when the full check last ran; never, or a stamp from
// the future (a clock set back), counts as long ago, so the hook checks.
func TestCheckedAgo(t *testing.T) {
	dir := local.Open(t.TempDir(), time.Second)
	now := time.Now()
	if ago := CheckedAgo(dir, now); ago < time.Hour {
		t.Fatalf("never checked: %v ago, want long ago", ago)
	}
	markChecked(dir)
	if ago := CheckedAgo(dir, time.Now()); ago < 0 || ago > time.Minute {
		t.Fatalf("just checked: %v ago", ago)
	}
	if ago := CheckedAgo(dir, now.Add(-time.Hour)); ago < time.Hour {
		t.Fatalf("a check stamped in the future: %v ago, want long ago", ago)
	}
}

// TestCheckRootIsForTheFullCheck: a CheckRoot file's edit changes the
// skills' key (the full check) but not the quick stamp every prompt takes.
func TestCheckRootIsForTheFullCheck(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "installed.py")
	if err := os.WriteFile(f, []byte("print(1)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	roots := []string{"skills", CheckRoot(f)}
	quick, key := quickStamp(root, roots), mustKey(t, root, roots)
	if err := os.WriteFile(f, []byte("print(2) # longer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if quickStamp(root, roots) != quick {
		t.Error("the quick stamp stats a CheckRoot")
	}
	if mustKey(t, root, roots) == key {
		t.Error("the full check missed the CheckRoot's edit")
	}
}

func mustKey(t *testing.T, root string, roots []string) string {
	t.Helper()
	k, err := SkillsKey(root, roots)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
