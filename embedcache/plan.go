package embedcache

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/models"
)

// EmbedChunk is how many texts a Compute progress step embeds; the model
// batches inside (an ONNX model runs length-sorted batches of 32), so this
// only sets how often a progress bar moves.
const EmbedChunk = 64

// Plan is one re-embedding of a registry's committed cache: the vectors the
// cache already holds and the texts left to compute.
type Plan struct {
	// Rel is the cache folder, registry-relative with slashes: the prefix
	// of the files Files returns.
	Rel string

	emb     models.Embedder
	items   []DocText
	vecs    [][]float32 // per item; the computed ones are filled in by Compute
	todo    []DocText
	todoAt  []int
	changed map[string]bool // skills with a text to compute
	anchor  []float32       // the old cache's anchor, kept while its rows are
	noteAdd bool            // the old cache predates anchors: one is added
	older   bool            // the old cache kept one row per skill and field
	dropped int             // skills of the old cache no longer in the registry
	drift   string          // why every vector is recomputed, if the anchor moved
}

// NewPlan reads the committed cache under root in place (HEAD's files must
// stay as they are until the caller commits the new ones) and reuses its
// vectors by text sha, unless all, or unless its anchor says another build
// of the model wrote it: then nothing in it can be trusted.
func NewPlan(emb models.Embedder, root string, items []DocText, all bool, warn func(string)) (*Plan, error) {
	dir := CacheDir(root, emb.ID())
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	p := &Plan{emb: emb, items: items, Rel: filepath.ToSlash(rel), vecs: make([][]float32, len(items)), changed: map[string]bool{}}
	var old *Cache
	if !all {
		old = OpenCache(dir, CacheKey(emb), emb.Dim(), warn)
		p.dropped = droppedSkills(old, items)
		p.older = old.older && old.Len() > 0
		if old, err = p.checkAnchor(old, warn); err != nil {
			return nil, err
		}
	}
	for i, it := range items {
		if old != nil {
			if v, ok := old.Get(TextSHA(it.Text)); ok {
				p.vecs[i] = v
				continue
			}
		}
		p.todo, p.todoAt = append(p.todo, it), append(p.todoAt, i)
		p.changed[it.Skill] = true
	}
	return p, nil
}

// checkAnchor keeps the old cache's anchor, or drops the whole cache when
// its anchor has drifted.
func (p *Plan) checkAnchor(old *Cache, warn func(string)) (*Cache, error) {
	anchor, ok := old.Anchor()
	if !ok {
		p.noteAdd = old.Len() > 0
		return old, nil
	}
	d, err := CheckDrift(p.emb, anchor)
	if err != nil {
		return nil, err
	}
	if d.Drifted {
		p.drift = fmt.Sprintf("anchor cosine %.2f < %.2f", d.Cosine, DriftThreshold)
		warn(fmt.Sprintf("%s was written by another build of %s (%s); recomputing every vector", p.Rel, p.emb.ID(), p.drift))
		return nil, nil
	}
	p.anchor = anchor
	return old, nil
}

// Todo is the number of texts Compute embeds.
func (p *Plan) Todo() int { return len(p.todo) }

// Skills is the number of skills the new cache holds rows of (each has
// two texts, and one per helpful or harmful context).
func (p *Plan) Skills() int {
	seen := map[string]bool{}
	for _, it := range p.items {
		seen[it.Skill] = true
	}
	return len(seen)
}

// Compute embeds the texts left to compute, EmbedChunk at a time, and
// calls progress with the number done after each chunk.
func (p *Plan) Compute(progress func(done int)) error {
	for lo := 0; lo < len(p.todo); lo += EmbedChunk {
		hi := min(lo+EmbedChunk, len(p.todo))
		vecs, err := EmbedDocs(p.emb, nil, p.todo[lo:hi])
		if err != nil {
			return err
		}
		for k, v := range vecs {
			p.vecs[p.todoAt[lo+k]] = v
		}
		progress(hi)
	}
	return nil
}

// Files builds the new cache in a temp folder and returns its files by
// registry-relative path: the anchor row first, then each skill's rows in
// the skills' order, so the files depend only on the skills and the model,
// not on the edit history. Compute must have run.
func (p *Plan) Files(float16 bool) (map[string][]byte, error) {
	anchor := p.anchor
	if anchor == nil || len(p.todo) == len(p.items) { // nothing old is kept: date the cache now
		var err error
		if anchor, err = EmbedAnchor(p.emb); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "megagit-embed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	c := OpenCache(tmp, CacheKey(p.emb), p.emb.Dim(), nil)
	c.SetAnchor(anchor)
	for i, it := range p.items {
		c.Put(RowOf(it), p.vecs[i])
	}
	if err := c.Save(float16); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, name := range []string{"vectors.npy", "index.json"} {
		data, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			return nil, err
		}
		files[p.Rel+"/"+name] = data
	}
	return files, nil
}

// Summary says how many skills were embedded and how many reused: a
// changed skill re-embeds only itself.
func (p *Plan) Summary() string {
	n := p.Skills()
	s := fmt.Sprintf("embedded %d, kept %d skills with %s (%d of %d texts computed",
		len(p.changed), n-len(p.changed), p.emb.ID(), len(p.todo), len(p.items))
	if p.dropped > 0 {
		s += fmt.Sprintf(", %d deleted skill(s) dropped", p.dropped)
	}
	if p.drift != "" {
		s += ", all recomputed: " + p.drift
	} else if p.noteAdd {
		s += ", drift anchor added"
	}
	if p.older && p.drift == "" {
		s += ", rewritten with a row for every text"
	}
	return s + ")"
}

// droppedSkills counts the skills the old cache holds rows of that are no
// longer in the registry (the new cache has no rows for them).
func droppedSkills(old *Cache, items []DocText) int {
	current := map[string]bool{AnchorSkill: true}
	for _, it := range items {
		current[it.Skill] = true
	}
	gone := map[string]bool{}
	old.Retain(func(skill, field, sha string) bool { // keeps every row: a read-only walk
		if !current[skill] {
			gone[skill] = true
		}
		return true
	})
	return len(gone)
}
