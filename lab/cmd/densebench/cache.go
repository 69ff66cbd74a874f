package main

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/megagit/megagit/models"
)

// vcache holds a model's vectors by the sha256 of (model id, kind, text),
// in memory and, given a file, on disk between runs. It also times the
// prompts it embeds one at a time, as routing does.
type vcache struct {
	file  string
	emb   models.Embedder
	vecs  map[string][]float32
	dirty bool
	took  []time.Duration
}

func openCache(file string, emb models.Embedder) *vcache {
	c := &vcache{file: file, emb: emb, vecs: map[string][]float32{}}
	if file == "" {
		return c
	}
	f, err := os.Open(file)
	if err != nil {
		return c
	}
	defer f.Close()
	if err := gob.NewDecoder(f).Decode(&c.vecs); err != nil {
		fmt.Fprintf(os.Stderr, "densebench: %s unreadable (%v): starting empty\n", file, err)
		c.vecs = map[string][]float32{}
	}
	return c
}

func (c *vcache) key(text string, kind models.Kind) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", c.emb.ID(), kind, text)))
	return hex.EncodeToString(h[:])
}

func (c *vcache) get(text string, kind models.Kind) []float32 { return c.vecs[c.key(text, kind)] }

// fill embeds the texts the cache lacks, in batches.
func (c *vcache) fill(texts []string, kind models.Kind) {
	var missing []string
	seen := map[string]bool{}
	for _, t := range texts {
		k := c.key(t, kind)
		if _, ok := c.vecs[k]; !ok && !seen[k] {
			seen[k] = true
			missing = append(missing, t)
		}
	}
	const batch = 64
	start := time.Now()
	for i := 0; i < len(missing); i += batch {
		j := min(i+batch, len(missing))
		v, err := c.emb.Embed(missing[i:j], kind)
		check(err)
		for n, t := range missing[i:j] {
			c.vecs[c.key(t, kind)] = v[n]
		}
		c.dirty = true
		fmt.Fprintf(os.Stderr, "\rembedded %d of %d texts", j, len(missing))
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, " in %s\n", timeSince(start).Round(time.Millisecond))
	}
}

// query is one prompt's vector, embedded alone (and timed) the first time.
func (c *vcache) query(text string) ([]float32, error) {
	k := c.key(text, models.Query)
	if v, ok := c.vecs[k]; ok {
		return v, nil
	}
	start := time.Now()
	v, err := c.emb.Embed([]string{text}, models.Query)
	if err != nil {
		return nil, err
	}
	c.took = append(c.took, timeSince(start))
	c.vecs[k], c.dirty = v[0], true
	return v[0], nil
}

// timing summarises the prompts embedded in this run.
func (c *vcache) timing() string {
	if len(c.took) == 0 {
		return "every prompt came from the cache"
	}
	d := append([]time.Duration(nil), c.took...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return fmt.Sprintf("%d prompts, mean %.2f ms, p50 %.2f ms, p90 %.2f ms", len(d),
		ms(sum)/float64(len(d)), ms(d[len(d)/2]), ms(d[len(d)*9/10]))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (c *vcache) save() {
	if c.file == "" || !c.dirty {
		return
	}
	tmp := c.file + ".tmp"
	f, err := os.Create(tmp)
	check(err)
	check(gob.NewEncoder(f).Encode(c.vecs))
	check(f.Close())
	check(os.Rename(tmp, c.file))
	c.dirty = false
}
