package staticmodel

import (
	"embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"strings"
	"sync"
)

// BuiltinID names the default built-in model: the one a registry whose
// config sets no model.id routes with.
const BuiltinID = "megagit-static-v3"

// BuiltinIDs lists the models shipped inside the binary, the default first.
// The binary ships one: every built-in model adds its table (7.9 MB) to
// both binaries, and megagit-hook's start-up cost grows with its size.
func BuiltinIDs() []string { return []string{BuiltinID} }

// IsBuiltin reports whether id names a model shipped inside the binary.
func IsBuiltin(id string) bool { return id == BuiltinID }

// RetiredIDs are built-in models earlier releases shipped and this one
// does not: a registry that names one routes with BuiltinID instead.
func RetiredIDs() []string { return []string{"megagit-static-v2", "megagit-static-v1"} }

// IsRetired reports whether id names a built-in model of an earlier release.
func IsRetired(id string) bool {
	for _, r := range RetiredIDs() {
		if id == r {
			return true
		}
	}
	return false
}

// ErrNoBuiltin means this binary was built without a built-in model's
// trained files (only its README), so callers fall back to lexical routing.
var ErrNoBuiltin = errors.New("built-in model is not in this build")

//go:embed models/megagit-static-v3
var builtinFS embed.FS

// BuiltinFS holds the built-in model's folder, models/<id>, for tests
// that pin their files.
func BuiltinFS() fs.FS { return builtinFS }

// Meta is model.json: what a static model folder holds and how it was
// made, so a folder can be shared and checked without reading its vectors.
type Meta struct {
	ID              string         `json:"id"`
	Dim             int            `json:"dim"`
	VocabSize       int            `json:"vocab_size"`
	Dtype           string         `json:"dtype"` // "int8" or "float32"
	TokenizerSHA256 string         `json:"tokenizer_sha256"`
	Created         string         `json:"created"`
	Recipe          map[string]any `json:"recipe,omitempty"`
}

// Model is a static embedding model: one vector per WordPiece token; a
// text's vector is the normalised mean of its tokens' vectors. Safe for
// concurrent use.
type Model struct {
	meta Meta
	tok  *Tokenizer
	rows int
	f32  []float32 // rows×dim, when stored as float32
	q    *int8Rows // when stored as int8: read in place, row by row
}

// Builtin returns the default built-in model (loaded once), or
// ErrNoBuiltin. Loading copies none of its table: rows are read from the
// binary as texts use them.
func Builtin() (*Model, error) { return BuiltinModel(BuiltinID) }

// builtins loads each built-in model once.
var builtins = func() map[string]func() (*Model, error) {
	out := map[string]func() (*Model, error){}
	for _, id := range BuiltinIDs() {
		out[id] = sync.OnceValues(func() (*Model, error) {
			dir := "models/" + id
			if _, err := fs.Stat(builtinFS, dir+"/model.json"); err != nil {
				return nil, fmt.Errorf("%w: %s", ErrNoBuiltin, id)
			}
			return Load(builtinFS, dir)
		})
	}
	return out
}()

// BuiltinModel returns the built-in model id (loaded once), or an error:
// ErrNoBuiltin when its files are not in this build, another when id is
// no built-in model.
func BuiltinModel(id string) (*Model, error) {
	load, ok := builtins[id]
	if !ok {
		return nil, fmt.Errorf("%q is not a built-in model (%s)", id, strings.Join(BuiltinIDs(), ", "))
	}
	return load()
}

// New wraps an in-memory float32 table (vocab rows × dim) over the default
// tokenizer, so the trainer can evaluate a model without writing it out.
func New(id string, dim int, table []float32) (*Model, error) {
	tok, err := DefaultTokenizer()
	if err != nil {
		return nil, err
	}
	if dim <= 0 || len(table) != tok.VocabSize()*dim {
		return nil, fmt.Errorf("static model %s: table has %d values, want %d×%d", id, len(table), tok.VocabSize(), dim)
	}
	return &Model{
		meta: Meta{ID: id, Dim: dim, VocabSize: tok.VocabSize(), Dtype: "float32", TokenizerSHA256: tok.SHA256()},
		tok:  tok, rows: tok.VocabSize(), f32: table,
	}, nil
}

// Load reads a model folder (model.json, vectors.npy, and scales.npy for
// int8) from fsys, e.g. os.DirFS("/") or the embedded files. An int8 table
// is never dequantised whole (see int8Rows); from an embed.FS it is not
// even copied, which makes opening the built-in model nearly free.
func Load(fsys fs.FS, dir string) (*Model, error) {
	tok, err := DefaultTokenizer()
	if err != nil {
		return nil, err
	}
	file := func(name string) string { return path.Join(dir, name) }
	fail := func(name, format string, args ...any) error {
		return fmt.Errorf("static model %s: %s: %s", dir, name, fmt.Sprintf(format, args...))
	}
	raw, err := fs.ReadFile(fsys, file("model.json"))
	if err != nil {
		return nil, fail("model.json", "%v", err)
	}
	var meta Meta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, fail("model.json", "%v", err)
	}
	switch {
	case meta.ID == "":
		return nil, fail("model.json", "field id is empty")
	case meta.Dim <= 0 || meta.Dim > 1<<16:
		return nil, fail("model.json", "field dim is %d", meta.Dim)
	case meta.Dtype != "int8" && meta.Dtype != "float32":
		return nil, fail("model.json", "field dtype is %q, want \"int8\" or \"float32\"", meta.Dtype)
	case meta.VocabSize != tok.VocabSize():
		return nil, fail("model.json", "field vocab_size is %d, the tokenizer has %d tokens", meta.VocabSize, tok.VocabSize())
	case meta.TokenizerSHA256 != tok.SHA256():
		return nil, fail("model.json", "field tokenizer_sha256 is %q, want %s (the model was trained with another tokenizer)", meta.TokenizerSHA256, tok.SHA256())
	}
	m := &Model{meta: meta, tok: tok, rows: meta.VocabSize}
	open := func(name string) (io.ReaderAt, *NPYHeader, int64, error) {
		r, size, err := openInPlace(fsys, file(name))
		if err != nil {
			return nil, nil, 0, fail(name, "%v", err)
		}
		h, off, err := NPYLayout(r, size)
		if err != nil {
			return nil, nil, 0, fail(name, "%v", err)
		}
		return r, h, off, nil
	}
	vr, vec, voff, err := open("vectors.npy")
	if err != nil {
		return nil, err
	}
	want := DtypeInt8
	if meta.Dtype == "float32" {
		want = DtypeFloat32
	}
	if vec.Dtype != want {
		return nil, fail("vectors.npy", "dtype %s, model.json says %s", vec.Dtype, meta.Dtype)
	}
	if len(vec.Shape) != 2 || vec.Rows != meta.VocabSize || vec.Cols != meta.Dim {
		return nil, fail("vectors.npy", "shape %v, model.json says (%d, %d) (vocab_size, dim)", vec.Shape, meta.VocabSize, meta.Dim)
	}
	if meta.Dtype == "float32" {
		m.f32 = make([]float32, vec.Count)
		buf := make([]byte, vec.Size)
		if _, err := vr.ReadAt(buf, voff); err != nil {
			return nil, fail("vectors.npy", "%v", err)
		}
		for i := range m.f32 {
			m.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		return m, nil
	}
	// int8: the rows stay in the file's bytes (the binary's, for the
	// built-in model) and are dequantised one by one as texts use them.
	sr, sc, soff, err := open("scales.npy")
	if err != nil {
		return nil, err
	}
	if sc.Dtype != DtypeFloat32 || sc.Rows != meta.VocabSize || sc.Cols != 1 {
		return nil, fail("scales.npy", "dtype %s shape %v, want %s (%d,) or (%d, 1)", sc.Dtype, sc.Shape, DtypeFloat32, meta.VocabSize, meta.VocabSize)
	}
	m.q = &int8Rows{vec: vr, scales: sr, vecOff: voff, scaleOff: soff, rows: meta.VocabSize, dim: meta.Dim}
	if err := m.q.checkScales(); err != nil {
		return nil, fail("scales.npy", "%v", err)
	}
	return m, nil
}

// ID names the model (model.json "id").
func (m *Model) ID() string { return m.meta.ID }

// Dim is the vector length.
func (m *Model) Dim() int { return m.meta.Dim }

// Meta returns model.json, for `megagit model list`.
func (m *Model) Meta() Meta { return m.meta }

// Fingerprint names this build of the model (when it was saved), so a
// retrained table under the same id does not reuse cached vectors.
func (m *Model) Fingerprint() string { return m.meta.Created }

// Key is the identity caches and the compiled route index key a model's
// vectors by (embedcache.CacheKey of any embedder): its id, plus the
// build's fingerprint when there is one.
func Key(id, fingerprint string) string {
	if fingerprint != "" {
		return id + "@" + fingerprint
	}
	return id
}

// Tokenizer is the vocabulary the table is indexed by, so the trainer and
// adapt tokenise exactly as Embed does.
func (m *Model) Tokenizer() *Tokenizer { return m.tok }

// VocabSize is the table's row count.
func (m *Model) VocabSize() int { return m.rows }

// IDs tokenises text as Embed does.
func (m *Model) IDs(text string) []int32 { return m.tok.IDs(text) }

// Embed is text's vector: the normalised mean of its tokens' rows.
func (m *Model) Embed(text string) []float32 { return m.EmbedIDs(m.tok.IDs(text)) }

// Table returns a float32 copy of the token table (rows × dim), the
// starting point for training and adapt. It is the only place an int8
// model is dequantised whole: embedding reads just the rows it needs.
func (m *Model) Table() ([]float32, int) {
	if m.f32 != nil {
		return append([]float32(nil), m.f32...), m.meta.Dim
	}
	return m.q.table(), m.meta.Dim
}

// EmbedIDs pools already tokenised ids (from IDs): ids outside the table
// are ignored; no known id gives a zero vector.
func (m *Model) EmbedIDs(ids []int32) []float32 {
	dim := m.meta.Dim
	sum := make([]float32, dim)
	var buf []byte // int8 row + scale
	if m.q != nil {
		buf = make([]byte, dim+4)
	}
	n := 0
	for _, id := range ids {
		if id < 0 || int(id) >= m.rows {
			continue
		}
		if m.q != nil {
			if m.q.add(sum, int(id), buf) {
				n++
			}
			continue
		}
		n++
		for j, v := range m.f32[int(id)*dim : int(id+1)*dim] {
			sum[j] += v
		}
	}
	if n == 0 {
		return sum
	}
	var norm float64
	for _, v := range sum {
		norm += float64(v) * float64(v)
	}
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		clear(sum)
		return sum
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range sum {
		sum[j] *= inv
	}
	return sum
}
