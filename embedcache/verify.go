package embedcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"unsafe"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/models/staticmodel"
)

// Inspection is one cache folder as found on disk, read without trusting
// it, for `megagit cache status|verify` and doctor; routing uses OpenCache.
type Inspection struct {
	Dir     string
	Present bool      // index.json exists
	Model   string    // the model key index.json names
	Dtype   string    // float32 | float16
	Dim     int       // as index.json says
	Format  int       // index.json's format: FormatRows, or 0 for an older megagit's
	Rows    []Row     // every row index.json lists, the anchor's included
	Anchor  []float32 // the anchor's vector; nil without one or when Err
	// AnchorStale: a row of skill AnchorSkill whose field or text hash is
	// not the anchor sentence's (edited, or another megagit's anchor), so
	// the cache has no anchor routing trusts and embed writes a new one.
	AnchorStale bool
	Err         error // why routing ignores the files; nil when they are sound
}

// Inspect reads the cache in dir and checks its files agree with each
// other: index.json parses, vectors.npy has the sha256, dtype and shape
// (rows x dim) index.json names, every row is complete and finite. Whether
// the cache suits a model (Model, Dim) is the caller's comparison.
func Inspect(dir string) Inspection {
	ins := Inspection{Dir: dir}
	idx, data, err := readCacheFiles(dir, "")
	if errors.Is(err, errNoCache) {
		return ins
	}
	ins.Present, ins.Err = true, err
	if idx == nil {
		return ins
	}
	ins.Model, ins.Dtype, ins.Dim, ins.Rows, ins.Format = idx.Model, idx.Dtype, idx.Dim, idx.Rows, idx.Format
	if err != nil {
		return ins
	}
	for i, r := range idx.Rows {
		if r.Skill == AnchorSkill && r.Field == AnchorField && r.SHA256 == anchorSHA {
			ins.Anchor = data[i*idx.Dim : (i+1)*idx.Dim]
		} else if r.Skill == AnchorSkill {
			ins.AnchorStale = true
		}
	}
	if ins.Anchor != nil {
		ins.AnchorStale = false
	}
	return ins
}

// maxCacheFile bounds one file of a cache folder (a million vectors of
// 256 float32s).
const maxCacheFile = 1 << 30

// readCacheFile reads one file of a cache folder: a regular file, bounded,
// and, in a registry (the folder above .megagit/), never through a symlink
// that leads out of it.
func readCacheFile(dir, name string) ([]byte, error) {
	p := filepath.Join(dir, name)
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if filepath.Base(d) != local.MetaDir {
			continue
		}
		root := filepath.Dir(d)
		rel, err := filepath.Rel(root, p)
		if err != nil {
			break
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		return local.ReadInside(root, filepath.ToSlash(rel), maxCacheFile)
	}
	return local.ReadRegular(p, maxCacheFile)
}

// readCacheFiles reads index.json and the vectors it names. idx is nil
// when index.json is missing or does not parse; err says what is wrong.
// With a model key, the vectors of another model's index are not read
// (data is nil).
func readCacheFiles(dir, model string) (idx *cacheIndex, data []float32, err error) {
	raw, err := readCacheFile(dir, "index.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errNoCache
	} else if err != nil {
		return nil, nil, err
	}
	idx = &cacheIndex{}
	if err := json.Unmarshal(raw, idx); err != nil {
		return nil, nil, fmt.Errorf("index.json: %v", err)
	}
	if model != "" && idx.Model != model {
		return idx, nil, nil // another model's rows: not worth reading
	}
	data, err = readVectors(dir, idx)
	return idx, data, err
}

func readVectors(dir string, idx *cacheIndex) ([]float32, error) {
	want, ok := map[string]string{"float32": staticmodel.DtypeFloat32, "float16": staticmodel.DtypeFloat16}[idx.Dtype]
	if !ok {
		return nil, fmt.Errorf("index.json: dtype %q", idx.Dtype)
	}
	if idx.Dim <= 0 {
		return nil, fmt.Errorf("index.json: dim %d", idx.Dim)
	}
	vraw, err := readCacheFile(dir, "vectors.npy")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("vectors.npy is missing")
	} else if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(vraw); hex.EncodeToString(sum[:]) != idx.VectorsSHA256 {
		return nil, errors.New("vectors.npy does not match index.json (truncated, edited, or an interrupted write)")
	}
	// Decode from the file's bytes: ReadNPY would copy them once more and
	// then decode into a third buffer (6 MB of fresh pages at 1,000 skills).
	a, off, err := staticmodel.NPYLayout(bytes.NewReader(vraw), int64(len(vraw)))
	if err != nil {
		return nil, fmt.Errorf("vectors.npy: %v", err)
	}
	if a.Dtype != want || a.Rows != len(idx.Rows) || a.Cols != idx.Dim || len(a.Shape) != 2 {
		return nil, fmt.Errorf("vectors.npy: %s %v, index.json says %s (%d, %d)", a.Dtype, a.Shape, idx.Dtype, len(idx.Rows), idx.Dim)
	}
	raw := vraw[off:]
	var data []float32
	switch {
	case a.Dtype == staticmodel.DtypeFloat32 && len(raw) > 0 && littleEndian && uintptr(unsafe.Pointer(&raw[0]))%4 == 0:
		data = unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), len(raw)/4) // vraw is ours alone
	case a.Dtype == staticmodel.DtypeFloat32:
		data = make([]float32, len(raw)/4)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	default:
		data = make([]float32, len(raw)/2)
		for i := range data {
			data[i] = staticmodel.Float16(binary.LittleEndian.Uint16(raw[2*i:])).Float32()
		}
	}
	for i, r := range idx.Rows {
		if len(r.SHA256) != 64 || r.Skill == "" {
			return nil, fmt.Errorf("index.json: row %d is incomplete", i)
		}
		for _, x := range data[i*idx.Dim : (i+1)*idx.Dim] {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("vectors.npy: row %d is not finite", i)
			}
		}
	}
	return data, nil
}

// Coverage compares a cache's rows with the texts routing embeds now (a
// row per skill, field and place, RowOf): what `megagit embed` would
// change.
type Coverage struct {
	Skills  int      // skills whose every text has an up-to-date row
	Stale   []string // skills with a row whose text has changed since
	Missing []string // skills with a text that has no row at all
	Orphans []string // skills with rows that are no longer in the registry
}

// Compare computes the coverage of rows for items; the anchor row is
// neither a skill nor an orphan. Lists are sorted.
func Compare(rows []Row, items []DocText) Coverage {
	have := make(map[string]string, len(rows))
	for _, r := range rows {
		have[r.key()] = r.SHA256
	}
	current := map[string]bool{}
	stale, missing := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		current[it.Skill] = true
		r := RowOf(it)
		switch sha, ok := have[r.key()]; {
		case !ok:
			missing[it.Skill] = true
		case sha != r.SHA256:
			stale[it.Skill] = true
		}
	}
	var cov Coverage
	orphans := map[string]bool{}
	for _, r := range rows {
		if !current[r.Skill] && r.Skill != AnchorSkill {
			orphans[r.Skill] = true
		}
	}
	for s := range missing {
		if stale[s] {
			delete(missing, s) // one verdict per skill: stale says "re-embed"
		}
	}
	cov.Stale, cov.Missing, cov.Orphans = sortedKeys(stale), sortedKeys(missing), sortedKeys(orphans)
	cov.Skills = len(current) - len(cov.Stale) - len(cov.Missing)
	return cov
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// littleEndian: float32 file bytes can be used as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
