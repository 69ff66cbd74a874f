package ranker

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// evidenceDocs is testDocs with contexts, harmful contexts and verdict
// reasons, so every vector kind the snapshot carries is exercised,
// including terms that occur only in vectors (df = 0).
func evidenceDocs() []Doc {
	docs := testDocs()
	docs[1].HelpfulContexts = []string{"pull the invoice totals out of a scanned pdf", "tables in a quarterly report"}
	docs[1].HarmfulContexts = []string{"zebra xylophone quokka"}
	docs[1].HelpfulCount, docs[1].HarmfulCount = 4, 1
	docs[2].Related = []Reason{{Text: "found the bad commit fast", Helpful: true}, {Text: "bisect hung on a flaky test"}}
	docs[3].HarmfulContexts = []string{"kubernetes helm chart"}
	docs[4].Weight = 1.3
	return docs
}

// roundTrip passes a snapshot through its binary form, as the prompt hook
// stores it, starting at offset shift of an 8-aligned buffer: 0 shares
// the tables with the buffer, 4 makes the float64 table misaligned and
// so copied.
func roundTrip(t testing.TB, s *Snapshot, shift int) *Snapshot {
	t.Helper()
	b, err := s.AppendBinary(make([]byte, shift, 1<<10))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]uint64, (len(b)+7)/8) // 8-aligned
	data := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(b))
	copy(data, b)
	out, err := DecodeSnapshot(data[shift:])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameRankings(t *testing.T, docs []Doc, cfg Config, queries []string, opts ...Options) {
	t.Helper()
	built := NewIndex(docs, cfg)
	if len(opts) == 0 {
		opts = []Options{{}}
	}
	for _, shift := range []int{0, 4} {
		restored, err := NewIndexFromSnapshot(docs, cfg, roundTrip(t, built.Snapshot(), shift))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			for _, opt := range opts {
				want, got := built.Rank(q, opt), restored.Rank(q, opt)
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("shift %d, query %q %+v: snapshot ranking differs\nwant %+v\ngot  %+v", shift, q, opt, want, got)
				}
			}
		}
	}
}

// TestSnapshotBinaryRoundTrip checks the binary form keeps every table.
func TestSnapshotBinaryRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Fields.Headings.B = 0.33
	s := NewIndex(evidenceDocs(), cfg).Snapshot()
	for _, shift := range []int{0, 4} {
		if got := roundTrip(t, s, shift); !reflect.DeepEqual(got, s) {
			t.Fatalf("shift %d: round trip differs\nwant %+v\ngot  %+v", shift, s, got)
		}
	}
}

// TestDecodeSnapshotDamaged checks a truncated or altered binary form is
// refused or restores an index that ranks without panicking, never a panic.
func TestDecodeSnapshotDamaged(t *testing.T) {
	docs := evidenceDocs()
	form, err := NewIndex(docs, DefaultConfig()).Snapshot().AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	try := func(data []byte) {
		s, err := DecodeSnapshot(data)
		if err != nil {
			if !errors.Is(err, ErrSnapshotMismatch) {
				t.Fatalf("err = %v, want ErrSnapshotMismatch", err)
			}
			return
		}
		if ix, err := NewIndexFromSnapshot(docs, DefaultConfig(), s); err == nil {
			ix.Rank("pull invoice totals from a pdf kubernetes", Options{})
		}
	}
	for n := 0; n < len(form); n++ {
		try(form[:n])
	}
	for i := 0; i < len(form); i++ {
		for _, v := range []byte{0, 1, 0x7f, 0xff} {
			b := append([]byte(nil), form...)
			b[i] = v
			try(b)
		}
	}
}

// FuzzDecodeSnapshot feeds arbitrary bytes through decoding, restoring
// and ranking: a damaged compiled index must never crash the hook.
func FuzzDecodeSnapshot(f *testing.F) {
	docs := evidenceDocs()
	form, err := NewIndex(docs, DefaultConfig()).Snapshot().AppendBinary(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(form)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSnapshot(data)
		if err != nil {
			return
		}
		if ix, err := NewIndexFromSnapshot(docs, DefaultConfig(), s); err == nil {
			ix.Rank("pull invoice totals from a pdf", Options{Dense: []float64{0.1, 0.9, 0.3, 0, 0.5, 0.7}})
		}
	})
}

func TestSnapshotRanksIdentically(t *testing.T) {
	queries := []string{
		"pull invoice totals from a pdf", "my webhook signature check fails",
		"find the commit that introduced a regression", "zebra quokka", "hello there",
		"", "docker compose kubernetes helm chart", "bisect hung on a flaky test",
	}
	blend := DefaultConfig()
	blend.Blend.Enabled = true
	fast := DefaultConfig()
	fast.FastPath = LexicalFastPath{Min: 1, Margin: 0.5}
	for name, cfg := range map[string]Config{"default": DefaultConfig(), "blend": blend, "fastpath": fast} {
		t.Run(name, func(t *testing.T) {
			sameRankings(t, evidenceDocs(), cfg, queries,
				Options{}, Options{NoDynamicK: true, TopK: 3}, Options{Dense: []float64{0.1, 0.9, 0.3, 0, 0.5, 0.7}})
		})
	}
	t.Run("empty registry", func(t *testing.T) { sameRankings(t, nil, DefaultConfig(), queries) })
}

// TestSnapshotRanksBenchmarksIdentically checks every benchmark query on
// the development benchmarks' real skills.
func TestSnapshotRanksBenchmarksIdentically(t *testing.T) {
	for _, b := range []string{"skills-dev", "metatool"} {
		t.Run(b, func(t *testing.T) {
			set := loadBench(t, filepath.Join(benchRoot, b), "queries.jsonl")
			var qs []string
			for _, q := range set.queries {
				qs = append(qs, q.Query)
			}
			cfg := DefaultConfig()
			cfg.Blend.Enabled = true
			sameRankings(t, set.docs, cfg, qs)
		})
	}
}

func TestSnapshotMismatch(t *testing.T) {
	docs := evidenceDocs()
	s := NewIndex(docs, DefaultConfig()).Snapshot()
	other := DefaultConfig()
	other.Fields.Headings.Weight = 0.5
	bad := *s
	bad.PostStart = append([]int32(nil), s.PostStart...)
	bad.PostStart[1] = 1 << 30
	for name, tc := range map[string]struct {
		docs []Doc
		cfg  Config
		s    *Snapshot
	}{
		"nil":            {docs, DefaultConfig(), nil},
		"fields":         {docs, other, s},
		"doc count":      {docs[:3], DefaultConfig(), s},
		"version":        {docs, DefaultConfig(), &Snapshot{Version: SnapshotVersion + 1}},
		"corrupt offset": {docs, DefaultConfig(), &bad},
		"zero value":     {docs, DefaultConfig(), &Snapshot{Version: SnapshotVersion, Fields: DefaultFields(), Docs: len(docs)}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewIndexFromSnapshot(tc.docs, tc.cfg, tc.s); !errors.Is(err, ErrSnapshotMismatch) {
				t.Fatalf("err = %v, want ErrSnapshotMismatch", err)
			}
		})
	}
}
