package ranker

import (
	"errors"
	"reflect"
	"testing"
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

// TestSnapshotRanksRealSkillsIdentically checks the snapshot on published
// skills (testdata/realskills) with prompts drawn from their own text.
func TestSnapshotRanksRealSkillsIdentically(t *testing.T) {
	docs := realDocs(t)
	cfg := DefaultConfig()
	cfg.Blend.Enabled = true
	sameRankings(t, docs, cfg, realQueries(docs))
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
