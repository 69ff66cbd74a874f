package index

import (
	"math"
	"reflect"
	"testing"

	"github.com/megagit/megagit/ranker"
)

// TestVectorsContextScores: a skill's helpful and harmful contexts score
// the prompt by their best cosine above the model's floor, rescaled; a
// cosine at or below the floor is no evidence.
func TestVectorsContextScores(t *testing.T) {
	v := &Vectors{Key: "m@1", Dim: 2,
		Rows:    []float32{1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0},
		Ctx:     []CtxRow{{Doc: 0}, {Doc: 0}, {Doc: 1, Harm: true}, {Doc: 2}},
		CtxRows: []float32{0.6, 0.8, 1, 0, 0.8, 0.6, 0, 1},
	}
	got := v.ContextScores([]float32{1, 0}, 0.2)
	want := &ranker.ContextScores{Help: []float64{1, 0, 0}, Harm: []float64{0, 0.75, 0}}
	for i := range want.Help {
		if math.Abs(got.Help[i]-want.Help[i]) > 1e-6 || math.Abs(got.Harm[i]-want.Harm[i]) > 1e-6 {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	}
	if got.RelHelp != nil || got.RelHarm != nil {
		t.Errorf("reason scores %v / %v without a reason row", got.RelHelp, got.RelHarm)
	}
	// Verdict reasons score into their own term, by the same rule.
	v.Ctx = append(v.Ctx, CtxRow{Doc: 2, Reason: true}, CtxRow{Doc: 1, Harm: true, Reason: true})
	v.CtxRows = append(v.CtxRows, 1, 0, 0.6, 0.8)
	got = v.ContextScores([]float32{1, 0}, 0.2)
	if !reflect.DeepEqual(got.RelHelp, []float64{0, 0, 1}) || math.Abs(got.RelHarm[1]-0.5) > 1e-6 || got.Help[2] != 0 || math.Abs(got.Harm[1]-0.75) > 1e-6 {
		t.Errorf("with reasons: %+v", got)
	}
	if (&Vectors{Key: "m@1", Dim: 2, Rows: []float32{1, 0, 1, 0}}).ContextScores([]float32{1, 0}, 0.2) != nil {
		t.Error("vectors without contexts gave context scores")
	}
	if v.ContextScores([]float32{1, 0, 0}, 0.2) != nil {
		t.Error("a prompt vector of another dimension was scored")
	}
}

// TestVectorsCodecKeepsContexts: the compiled index stores the contexts'
// rows with whose they are, and refuses a section whose context refers to
// no document.
func TestVectorsCodecKeepsContexts(t *testing.T) {
	v := &Vectors{Key: "m@1", Dim: 2, Rows: []float32{1, 0, 0, 1, 0.6, 0.8, 0.8, 0.6},
		Ctx: []CtxRow{{Doc: 1, Harm: true}, {Doc: 0}, {Doc: 1, Reason: true}, {Doc: 0, Harm: true, Reason: true}}, CtxRows: []float32{0, 1, 1, 0, 1, 0, 0, 1}}
	b := appendVectors(nil, v)
	got, ok := decodeVectors(b, 2)
	if !ok || !reflect.DeepEqual(got, v) {
		t.Fatalf("round trip: %+v (%v), want %+v", got, ok, v)
	}
	if _, ok := decodeVectors(b, 1); ok {
		t.Error("vectors of two documents read as one's")
	}
	bad := appendVectors(nil, &Vectors{Key: "m@1", Dim: 2, Rows: []float32{1, 0, 0, 1}, Ctx: []CtxRow{{Doc: 5}}, CtxRows: []float32{1, 0}})
	if _, ok := decodeVectors(bad, 1); ok {
		t.Error("a context of document 5 in a one-document index was read")
	}
	if _, ok := decodeVectors(b[:len(b)-4], 2); ok {
		t.Error("a cut context row was read")
	}
}

// TestVectorsForContexts: a refresh keeps each unchanged skill's rows and
// its contexts' rows, moved to its new place, and embeds again only the
// skill whose contexts changed (a new verdict).
func TestVectorsForContexts(t *testing.T) {
	docs := []ranker.Doc{
		{ID: "a", Description: "about a", HelpfulContexts: []string{"ctx a"}},
		{ID: "b", Description: "about b"},
	}
	prev := &Vectors{Key: "m@1", Dim: 1, Rows: []float32{1, 2, 3, 4}, Ctx: []CtxRow{{Doc: 0}}, CtxRows: []float32{5}}
	var asked []string
	src := Source{VecKey: "m@1", Vectors: func(ds []ranker.Doc) (*Vectors, error) {
		v := &Vectors{Key: "m@1", Dim: 1}
		for i, d := range ds {
			asked = append(asked, d.ID)
			v.Rows = append(v.Rows, 7, 8)
			for range d.HarmfulContexts {
				v.Ctx = append(v.Ctx, CtxRow{Doc: int32(i), Harm: true})
				v.CtxRows = append(v.CtxRows, 9)
			}
		}
		return v, nil
	}}
	// b is judged harmful in some context, and the skills swap places.
	now := []ranker.Doc{{ID: "b", Description: "about b", HarmfulContexts: []string{"ctx b"}}, docs[0]}
	got, err := vectorsFor(now, docs, prev, src.VecKey, src.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	want := &Vectors{Key: "m@1", Dim: 1, Rows: []float32{7, 8, 1, 2},
		Ctx: []CtxRow{{Doc: 0, Harm: true}, {Doc: 1}}, CtxRows: []float32{9, 5}}
	if !reflect.DeepEqual(asked, []string{"b"}) || !reflect.DeepEqual(got, want) {
		t.Errorf("embedded %v, got %+v; want [b], %+v", asked, got, want)
	}
}

// TestVecKeyFollowsReasons: a new verdict reason changes what a skill's
// vectors are made from, so a refresh embeds it again.
func TestVecKeyFollowsReasons(t *testing.T) {
	d := ranker.Doc{ID: "a", Description: "about a"}
	before := vecKeyOf(d)
	d.Related = []ranker.Reason{{Text: "made it fast", Helpful: true}}
	helped := vecKeyOf(d)
	d.Related[0].Helpful = false
	if before == helped || helped == vecKeyOf(d) {
		t.Errorf("keys %q, %q, %q: a reason or its polarity left the key alone", before.contexts, helped.contexts, vecKeyOf(d).contexts)
	}
}

// BenchmarkScores scores one prompt against 10,000 skills' rows of the
// built-in model's 256 dimensions (20 MB of float32): the dense scan of a
// prompt at 10,000 skills, bound by memory bandwidth (lab/perf-33.md).
func BenchmarkScores(b *testing.B) {
	const docs, dim = 10000, 256
	v := &Vectors{Dim: dim, Rows: make([]float32, 2*docs*dim)}
	for i := range v.Rows {
		v.Rows[i] = float32(i%97) / 97
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(i%13) / 13
	}
	b.SetBytes(int64(4 * len(v.Rows)))
	for b.Loop() {
		v.ScoresMany([][]float32{q})
	}
}

// TestVectorsCosine: two documents' likeness is the cosine of their name
// and description rows (even rows), never their name rows.
func TestVectorsCosine(t *testing.T) {
	v := &Vectors{Dim: 2, Rows: []float32{1, 0, 0, 1, 0.6, 0.8, 1, 0}}
	if got := v.Cosine(0, 1); math.Abs(got-0.6) > 1e-6 {
		t.Errorf("Cosine(0, 1) = %v, want 0.6", got)
	}
	if v.Cosine(0, 2) != 0 || v.Cosine(-1, 0) != 0 {
		t.Error("a document out of range has a cosine")
	}
}
