package embedcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/models/staticmodel"
)

// Cache holds the skill vectors of one model in a registry, keyed by the
// sha256 of the embedded text, so unchanged skills are never re-embedded.
// It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	dir   string
	model string
	dim   int
	rows  []Row
	vecs  [][]float32
	bySHA map[string]int // text sha -> a row holding its vector
	byKey map[string]int // Row.key() -> its row
	dirty bool
	older bool // loaded from an index.json older than FormatRows
}

// DocText is one embedded text of a skill (its description, say). N is
// its place among the skill's texts of the same field: a skill has one
// "full" text but may have several helpful contexts, the second of which
// is N 1, so each keeps a row of its own.
type DocText struct {
	Skill, Field string
	N            int
	Text         string
}

// Row is one line of index.json: the skill text a row of vectors.npy
// embeds (its skill, field and place N among that field's texts) and that
// text's sha256. The drift anchor is a row too (skill AnchorSkill, see
// anchor.go).
type Row struct {
	Skill  string `json:"skill"`
	Field  string `json:"field"`
	N      int    `json:"n,omitempty"`
	SHA256 string `json:"sha256"`
}

// key is what a row is found by: one row per skill, field and place.
func (r Row) key() string { return r.Skill + "\x00" + r.Field + "\x00" + strconv.Itoa(r.N) }

// RowOf is the row item's text is stored in.
func RowOf(it DocText) Row {
	return Row{Skill: it.Skill, Field: it.Field, N: it.N, SHA256: TextSHA(it.Text)}
}

// cacheIndex is index.json; VectorsSHA256 ties it to the vectors.npy it
// was written with, so a crash between the two writes reads as empty.
// Format is 0 (absent) in the caches of megagit before FormatRows, which
// kept one row per skill and field: a skill's second helpful context
// replaced its first. Such a cache is read as it is; the rows it lacks
// are reported missing and `megagit embed` adds them.
type cacheIndex struct {
	Format        int    `json:"format,omitempty"`
	Model         string `json:"model"`
	Dim           int    `json:"dim"`
	Dtype         string `json:"dtype"`
	VectorsSHA256 string `json:"vectors_sha256"`
	Rows          []Row  `json:"rows"`
}

// FormatRows is the index.json format whose rows are keyed by skill, field
// and place, so every embedded text of a skill has one.
const FormatRows = 2

// TextSHA is the cache key of an embedded text.
func TextSHA(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// CacheDir is where a registry keeps a model's vectors:
// <root>/.megagit/embeddings/<model id>, with characters unsafe in a folder
// name ("/" in "BAAI/bge-small") replaced by "_".
func CacheDir(root, modelID string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, modelID)
	if safe == "" || strings.Trim(safe, ".") == "" {
		safe = "_" + safe
	}
	return filepath.Join(embeddingsDir(root), safe)
}

// embeddingsDir is the registry's folder of committed caches, one per model.
func embeddingsDir(root string) string { return filepath.Join(root, ".megagit", "embeddings") }

// errNoCache is a cache that was never written: normal, not worth a warning.
var errNoCache = errors.New("no cache yet")

// OpenCache loads the cache in dir (normally CacheDir(root, modelID)). It
// never fails: a corrupt or mismatching cache is reported once through warn
// (may be nil) and treated as empty, so routing carries on; a missing one is
// simply empty.
func OpenCache(dir, modelID string, dim int, warn func(string)) *Cache {
	c := &Cache{dir: dir, model: modelID, dim: dim}
	err := c.load()
	if err != nil {
		c.rows, c.vecs = nil, nil
	}
	c.reindex()
	if err != nil && !errors.Is(err, errNoCache) {
		if warn != nil {
			warn(fmt.Sprintf("embedding cache %s: %v; vectors will be recomputed", dir, err))
		}
	}
	return c
}

func (c *Cache) load() error {
	idx, data, err := readCacheFiles(c.dir, c.model)
	switch {
	case idx == nil:
		return err
	case idx.Model != c.model:
		return fmt.Errorf("index.json is for model %q, not %q", idx.Model, c.model)
	case idx.Dim != c.dim:
		return fmt.Errorf("index.json has dim %d, model %s has %d", idx.Dim, c.model, c.dim)
	case err != nil:
		return err
	}
	c.rows, c.older = idx.Rows, idx.Format < FormatRows
	c.vecs = make([][]float32, len(idx.Rows))
	for i := range c.vecs {
		c.vecs[i] = data[i*c.dim : (i+1)*c.dim : (i+1)*c.dim]
	}
	return nil
}

// Len is the number of cached rows.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.rows)
}

// Get returns a copy of the vector cached for a text sha.
func (c *Cache) Get(sha string) ([]float32, bool) {
	v, ok := c.View(sha)
	if !ok {
		return nil, false
	}
	return append([]float32(nil), v...), true
}

// View is Get without the copy, for a caller that only reads the vector:
// it may share memory with the cache file's buffer.
func (c *Cache) View(sha string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.bySHA[sha]
	if !ok {
		return nil, false
	}
	return c.vecs[i], true
}

// Put records the vector of the skill text r names (r.SHA256 its text's
// sha), replacing the previous row of that skill, field and place.
// Vectors of the wrong length are dropped: they would poison every later
// route.
func (c *Cache) Put(r Row, vec []float32) {
	if len(vec) != c.dim {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sha := r.SHA256
	if i, ok := c.byKey[r.key()]; ok {
		if c.rows[i].SHA256 == sha && equalVec(c.vecs[i], vec) {
			return
		}
		if j, ok := c.bySHA[c.rows[i].SHA256]; ok && j == i {
			delete(c.bySHA, c.rows[i].SHA256) // another row with that text is merely recomputed
		}
		c.rows[i].SHA256, c.vecs[i] = sha, append([]float32(nil), vec...)
		c.bySHA[sha] = i
		c.dirty = true
		return
	}
	c.rows = append(c.rows, r)
	c.vecs = append(c.vecs, append([]float32(nil), vec...))
	c.byKey[r.key()] = len(c.rows) - 1
	if _, ok := c.bySHA[sha]; !ok {
		c.bySHA[sha] = len(c.rows) - 1
	}
	c.dirty = true
}

// Retain drops rows keep rejects (deleted skills, changed texts), so the
// committed cache does not grow forever.
func (c *Cache) Retain(keep func(skill, field, sha string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for i, r := range c.rows {
		if keep(r.Skill, r.Field, r.SHA256) {
			c.rows[n], c.vecs[n] = r, c.vecs[i]
			n++
		}
	}
	if n != len(c.rows) {
		clear(c.vecs[n:])
		c.rows, c.vecs = c.rows[:n], c.vecs[:n]
		c.reindex()
		c.dirty = true
	}
}

func (c *Cache) reindex() {
	c.bySHA = make(map[string]int, len(c.rows))
	c.byKey = make(map[string]int, len(c.rows))
	for i, r := range c.rows {
		c.byKey[r.key()] = i
		if _, ok := c.bySHA[r.SHA256]; !ok {
			c.bySHA[r.SHA256] = i
		}
	}
}

// Dirty reports unsaved changes, so read-only commands skip the write.
func (c *Cache) Dirty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dirty
}

// Save writes vectors.npy then index.json, each atomically; float16 halves
// the committed size. The in-memory vectors are rounded the same way, so
// this process ranks exactly as the next one that loads the file.
func (c *Cache) Save(float16 bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	flat := make([]float32, 0, len(c.vecs)*c.dim)
	for _, v := range c.vecs {
		flat = append(flat, v...)
	}
	idx := cacheIndex{Format: FormatRows, Model: c.model, Dim: c.dim, Dtype: "float32", Rows: c.rows}
	if idx.Rows == nil {
		idx.Rows = []Row{}
	}
	var buf bytes.Buffer
	if float16 {
		idx.Dtype = "float16"
		h := staticmodel.Float16s(flat)
		for i, x := range h {
			flat[i] = x.Float32()
		}
		for i := range c.vecs {
			c.vecs[i] = flat[i*c.dim : (i+1)*c.dim : (i+1)*c.dim]
		}
		if err := staticmodel.WriteNPY(&buf, len(c.rows), c.dim, h); err != nil {
			return err
		}
	} else if err := staticmodel.WriteNPY(&buf, len(c.rows), c.dim, flat); err != nil {
		return err
	}
	sum := sha256.Sum256(buf.Bytes())
	idx.VectorsSHA256 = hex.EncodeToString(sum[:])
	js, err := json.MarshalIndent(idx, "", " ")
	if err != nil {
		return err
	}
	if err := local.MkdirAll(c.dir); err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(c.dir, "vectors.npy"), buf.Bytes()); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(c.dir, "index.json"), append(js, '\n')); err != nil {
		return err
	}
	c.dirty = false
	return nil
}

// EmbedDocs returns one vector per item, in order, embedding (in batches)
// only texts the cache lacks and putting them into it. c may be nil. A
// cache that gains vectors also gains the drift anchor when it lacks one,
// so every cache routing writes can be checked by `megagit cache verify`.
func EmbedDocs(e models.Embedder, c *Cache, items []DocText) ([][]float32, error) {
	out, computed, err := embedDocs(e, c, items)
	if err == nil && computed > 0 && c != nil {
		c.ensureAnchor(e)
	}
	return out, err
}

func embedDocs(e models.Embedder, c *Cache, items []DocText) ([][]float32, int, error) {
	const batch = 256 // an ONNX model sorts each call's texts by length into batches of 32
	out := make([][]float32, len(items))
	shas := make([]string, len(items))
	pending := map[string][]int{} // sha -> items waiting for it
	var texts, order []string
	for i, it := range items {
		shas[i] = TextSHA(it.Text)
		if c != nil {
			if v, ok := c.Get(shas[i]); ok {
				out[i] = v
				c.Put(RowOf(it), v)
				continue
			}
		}
		if _, ok := pending[shas[i]]; !ok {
			texts, order = append(texts, it.Text), append(order, shas[i])
		}
		pending[shas[i]] = append(pending[shas[i]], i)
	}
	for lo := 0; lo < len(texts); lo += batch {
		hi := min(lo+batch, len(texts))
		vecs, err := e.Embed(texts[lo:hi], models.Document)
		if err != nil {
			return nil, 0, fmt.Errorf("embed with %s: %w", e.ID(), err)
		}
		if len(vecs) != hi-lo {
			return nil, 0, fmt.Errorf("embed with %s: %d vectors for %d texts", e.ID(), len(vecs), hi-lo)
		}
		for k, v := range vecs {
			if len(v) != e.Dim() {
				return nil, 0, fmt.Errorf("embed with %s: vector of length %d, want %d", e.ID(), len(v), e.Dim())
			}
			for _, i := range pending[order[lo+k]] {
				out[i] = v
				if c != nil {
					c.Put(RowOf(items[i]), v)
				}
			}
		}
	}
	return out, len(texts), nil
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeFileAtomic replaces path with data (local.WriteFileAtomic), naming
// the file in an error.
func writeFileAtomic(path string, data []byte) error {
	if err := local.WriteFileAtomic(path, data, 0o644); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the temp file's name: say the file's
			err = pe.Err
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Fingerprinter is an Embedder that can tell two builds of the same model id
// apart (a retrained table), so cached vectors of the old build are not reused.
type Fingerprinter interface {
	Fingerprint() string
}

// CacheKey is the model identity a cache is keyed by: the id, plus the
// build's fingerprint when the embedder has one.
func CacheKey(e models.Embedder) string {
	if f, ok := e.(Fingerprinter); ok {
		return staticmodel.Key(e.ID(), f.Fingerprint())
	}
	return e.ID()
}
