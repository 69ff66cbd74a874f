package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models/staticmodel"
)

// BuiltinID names the default built-in model: the one a registry whose
// config sets no model.id routes with.
const BuiltinID = staticmodel.BuiltinID

// BuiltinIDs lists the models shipped inside the binary, the default first.
func BuiltinIDs() []string { return staticmodel.BuiltinIDs() }

// IsBuiltin reports whether id names a model shipped inside the binary.
func IsBuiltin(id string) bool { return staticmodel.IsBuiltin(id) }

// IsRetired reports whether id names a built-in model an earlier release
// shipped: a registry that names one routes with BuiltinID, and says so.
func IsRetired(id string) bool { return staticmodel.IsRetired(id) }

// RetiredNote is the warning for a registry whose model.id names a
// retired built-in model.
func RetiredNote(id string) string {
	return fmt.Sprintf("model.id %s is no longer built into megagit: routing with %s, the built-in model, instead "+
		"(`megagit model use %s` updates the config, `megagit embed` commits its vectors)", id, BuiltinID, BuiltinID)
}

// ErrNoBuiltin means this binary was built without the trained model files
// (only the placeholder README), so callers fall back to lexical routing.
var ErrNoBuiltin = staticmodel.ErrNoBuiltin

// ModelMeta is model.json: what a static model folder holds and how it was
// made, so a folder can be shared and checked without reading its vectors.
type ModelMeta = staticmodel.Meta

// StaticModel is an Embedder with one vector per WordPiece token: a text's
// vector is the normalised mean of its tokens' vectors. The model itself
// (files, tokenisation, pooling) is staticmodel's, which the prompt hook
// links without the rest of this package. Safe for concurrent use.
type StaticModel struct {
	m   *staticmodel.Model
	tok *Tokenizer
}

func wrapStatic(m *staticmodel.Model, err error) (*StaticModel, error) {
	if err != nil {
		return nil, err
	}
	return &StaticModel{m: m, tok: &Tokenizer{st: m.Tokenizer()}}, nil
}

// Builtin returns the default built-in model (loaded once), or
// ErrNoBuiltin. Loading copies none of its table: rows are read from the
// binary as texts use them.
func Builtin() (*StaticModel, error) { return BuiltinModel(BuiltinID) }

// builtins wraps each built-in model once.
var builtins = func() map[string]func() (*StaticModel, error) {
	out := map[string]func() (*StaticModel, error){}
	for _, id := range BuiltinIDs() {
		out[id] = sync.OnceValues(func() (*StaticModel, error) { return wrapStatic(staticmodel.BuiltinModel(id)) })
	}
	return out
}()

// BuiltinModel returns the built-in model id (loaded once): ErrNoBuiltin
// when its files are not in this build, another error when id is no
// built-in model.
func BuiltinModel(id string) (*StaticModel, error) {
	if load, ok := builtins[id]; ok {
		return load()
	}
	return wrapStatic(staticmodel.BuiltinModel(id))
}

// NewStatic wraps an in-memory float32 table (vocab rows × dim), so the
// trainer can evaluate a model without writing it out.
func NewStatic(id string, dim int, table []float32) (*StaticModel, error) {
	return wrapStatic(staticmodel.New(id, dim, table))
}

// LoadStatic reads a model folder (model.json, vectors.npy, and scales.npy
// for int8) from fsys, e.g. os.DirFS("/") or the embedded files; see
// staticmodel.Load.
func LoadStatic(fsys fs.FS, dir string) (*StaticModel, error) {
	return wrapStatic(staticmodel.Load(fsys, dir))
}

// SaveStatic writes a model folder that LoadStatic reads back; table is
// vocab rows × dim float32, stored as int8 + per-row scales when quantize.
// Each file is replaced atomically, model.json last.
func SaveStatic(dir string, id string, dim int, table []float32, quantize bool, recipe map[string]any) error {
	tok, err := DefaultTokenizer()
	if err != nil {
		return err
	}
	rows := tok.VocabSize()
	if id == "" || dim <= 0 || len(table) != rows*dim {
		return fmt.Errorf("save static model %q: table has %d values, want %d×%d", id, len(table), rows, dim)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save static model: %w", err)
	}
	meta := ModelMeta{ID: id, Dim: dim, VocabSize: rows, Dtype: "float32", TokenizerSHA256: tok.SHA256(),
		Created: time.Now().UTC().Format(time.RFC3339), Recipe: recipe}
	var vec bytes.Buffer
	if quantize {
		meta.Dtype = "int8"
		q, scales := QuantizeRows(table, rows, dim)
		var sc bytes.Buffer
		if err := staticmodel.WriteNPY(&vec, rows, dim, q); err != nil {
			return err
		}
		if err := staticmodel.WriteNPY(&sc, rows, 1, scales); err != nil {
			return err
		}
		if err := local.WriteFileAtomic(filepath.Join(dir, "scales.npy"), sc.Bytes(), 0o644); err != nil {
			return err
		}
	} else if err := staticmodel.WriteNPY(&vec, rows, dim, table); err != nil {
		return err
	}
	if err := local.WriteFileAtomic(filepath.Join(dir, "vectors.npy"), vec.Bytes(), 0o644); err != nil {
		return err
	}
	if !quantize {
		if err := os.Remove(filepath.Join(dir, "scales.npy")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	js, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("save static model: %w", err)
	}
	return local.WriteFileAtomic(filepath.Join(dir, "model.json"), append(js, '\n'), 0o644)
}

// ID implements Embedder.
func (m *StaticModel) ID() string { return m.m.ID() }

// Dim implements Embedder.
func (m *StaticModel) Dim() int { return m.m.Dim() }

// Meta returns model.json, for `megagit model list`.
func (m *StaticModel) Meta() ModelMeta { return m.m.Meta() }

// Tokenizer is the vocabulary the table is indexed by, so the trainer and
// adapt tokenise exactly as Embed does.
func (m *StaticModel) Tokenizer() *Tokenizer { return m.tok }

// Table returns a float32 copy of the token table (rows × dim), the
// starting point for training and adapt.
func (m *StaticModel) Table() ([]float32, int) { return m.m.Table() }

// Embed implements Embedder; the static model treats queries and documents
// alike. Large batches are spread over the CPUs.
func (m *StaticModel) Embed(texts []string, kind Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts)/32)
	if workers <= 1 {
		for i, t := range texts {
			out[i] = m.m.Embed(t)
		}
		return out, nil
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(texts); i += workers {
				out[i] = m.m.Embed(texts[i])
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// EmbedIDs pools already tokenised ids (from Tokenizer.IDs): ids outside the
// table are ignored; no known id gives a zero vector.
func (m *StaticModel) EmbedIDs(ids []int32) []float32 { return m.m.EmbedIDs(ids) }

// Fingerprint names this build of the model (when it was saved), so a
// retrained table under the same id does not reuse cached vectors.
func (m *StaticModel) Fingerprint() string { return m.m.Fingerprint() }
