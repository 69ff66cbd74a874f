package dense

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/megagit/megagit/embedcache"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/ranker"
)

// countingEmbedder is a model that records the texts it is asked to embed.
type countingEmbedder struct{ seen map[string]bool }

func (c *countingEmbedder) ID() string { return "counting" }
func (c *countingEmbedder) Dim() int   { return 2 }
func (c *countingEmbedder) Embed(texts []string, kind models.Kind) ([][]float32, error) {
	for _, t := range texts {
		c.seen[t] = true
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// TestSlowModelEmbedsOnlyWhatACacheMisses: a model that is not cheap (ONNX)
// never embeds a registry no cache knows, but tops up a cache that exists.
func TestSlowModelEmbedsOnlyWhatACacheMisses(t *testing.T) {
	docs := []ranker.Doc{{ID: "docker-slim", Description: "Shrink images."}, {ID: "flaky-tests", Description: "Flaky CI."}}
	items := EmbedItems(docs)
	root := t.TempDir()
	dirs := []string{filepath.Join(root, "committed"), filepath.Join(root, "local")}
	emb := &countingEmbedder{seen: map[string]bool{}}
	// embedded lists which skill texts the model was asked for since last time.
	embedded := func() []bool {
		out := make([]bool, len(items))
		for i, it := range items {
			out[i] = emb.seen[it.Text]
		}
		emb.seen = map[string]bool{}
		return out
	}

	_, err := CachedVectors(emb, items, dirs, nil, false)
	if got := embedded(); !errors.Is(err, ErrNoVectors) || !slices.Equal(got, []bool{false, false, false, false}) {
		t.Fatalf("empty caches: err %v, embedded %v; want ErrNoVectors and nothing embedded", err, got)
	}
	_, err = CachedVectors(emb, items, dirs, nil, true)
	if got := embedded(); err != nil || !slices.Equal(got, []bool{true, true, true, true}) {
		t.Fatalf("cheap model: err %v, embedded %v; want every text", err, got)
	}

	// The first skill's vectors committed: only the second's are computed.
	committed := embedcache.OpenCache(dirs[0], emb.ID(), emb.Dim(), nil)
	for _, it := range items[:2] {
		committed.Put(embedcache.RowOf(it), []float32{0, 1})
	}
	if err := committed.Save(false); err != nil {
		t.Fatal(err)
	}
	vecs, err := CachedVectors(emb, items, []string{dirs[0], filepath.Join(root, "local2")}, nil, false)
	if got := embedded(); err != nil || !slices.Equal(got, []bool{false, false, true, true}) {
		t.Fatalf("partial cache: err %v, embedded %v; want only the second skill's texts", err, got)
	}
	if vecs[0][1] != 1 || vecs[2][0] != 1 {
		t.Errorf("vectors %v: want the cached one first, a computed one third", vecs)
	}
}
