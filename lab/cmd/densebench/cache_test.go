package main

import (
	"path/filepath"
	"testing"

	"github.com/megagit/megagit/models"
)

// countingEmb embeds a text as [len(text), kind] and counts its calls.
type countingEmb struct{ calls, texts int }

func (c *countingEmb) ID() string { return "counting" }
func (c *countingEmb) Dim() int   { return 2 }
func (c *countingEmb) Embed(texts []string, kind models.Kind) ([][]float32, error) {
	c.calls++
	c.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), float32(kind)}
	}
	return out, nil
}

func TestCacheFillQuerySave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v.gob")
	e := &countingEmb{}
	c := openCache(file, e)
	c.fill([]string{"ab", "abc", "ab"}, models.Document)
	if e.texts != 2 {
		t.Fatalf("embedded %d texts, want 2 (a repeated text once)", e.texts)
	}
	if v := c.get("abc", models.Document); len(v) != 2 || v[0] != 3 {
		t.Fatalf("get = %v", v)
	}
	q, err := c.query("ab")
	if err != nil || q[1] != float32(models.Query) || e.calls != 2 {
		t.Fatalf("query = %v, %v, calls %d", q, err, e.calls)
	}
	if _, err := c.query("ab"); err != nil || e.calls != 2 || len(c.took) != 1 {
		t.Fatalf("a cached prompt was embedded again (calls %d, timed %d)", e.calls, len(c.took))
	}
	c.save()
	e2 := &countingEmb{}
	c2 := openCache(file, e2)
	c2.fill([]string{"ab", "abc"}, models.Document)
	if _, err := c2.query("ab"); err != nil || e2.calls != 0 {
		t.Fatalf("reopened cache embedded %d times", e2.calls)
	}
	if got := c2.timing(); got != "every prompt came from the cache" {
		t.Fatalf("timing = %q", got)
	}
}
