package models

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// RuntimeVersion is the ONNX Runtime release scripts/install-onnxruntime.sh
// installs; onnxruntime_go v1.27.0 needs at least 1.24 (API 24).
const RuntimeVersion = "1.24.1"

// Sentinel errors of the ONNX embedder: both mean "route lexically and say
// so once", not "fail".
var (
	// ErrNoRuntime: the ONNX Runtime library is missing, unloadable or too
	// old, or this binary was built without ONNX support.
	ErrNoRuntime = errors.New("ONNX Runtime not available")
	// ErrNoModel: the model folder lacks model.onnx or tokenizer.json.
	ErrNoModel = errors.New("ONNX model not found")
)

// Files of an ONNX model folder (`model pull` writes this layout; a
// Hugging Face checkout with onnx/model.onnx works too).
const (
	ONNXModelFile = "model.onnx"
	TokenizerFile = "tokenizer.json"
)

// The ONNX embedder is an Embedder in every build.
var _ Embedder = (*ONNXModel)(nil)

// onnxBatch bounds one session run: texts per batch and padded tokens.
const (
	onnxBatchTexts  = 32
	onnxBatchTokens = 8192
)

// DefaultRuntimePath is where scripts/install-onnxruntime.sh puts the
// library: ${XDG_DATA_HOME:-~/.local/share}/megagit/onnxruntime/<lib>.
func DefaultRuntimePath() string {
	base := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "megagit", "onnxruntime", runtimeLibName())
}

func runtimeLibName() string {
	switch runtime.GOOS {
	case "darwin":
		return "libonnxruntime.dylib"
	case "windows":
		return "onnxruntime.dll"
	}
	return "libonnxruntime.so.1"
}

// RuntimePath resolves the configured library path (config key
// model.onnxruntime / env MEGAGIT_ONNXRUNTIME_LIB): empty means the install
// script's default, and a leading "~/" is the home folder.
func RuntimePath(configured string) string {
	if configured == "" {
		return DefaultRuntimePath()
	}
	if rest, ok := strings.CutPrefix(configured, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return configured
}

// ModelCacheDir is the folder `megagit model pull ID` installs a model in:
// <user cache dir>/megagit/models/<id>.
func ModelCacheDir(id string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("model cache: %w", err)
	}
	return filepath.Join(base, "megagit", "models", safeName(id)), nil
}

// safeName makes a model id usable as one path element.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, strings.ToLower(id))
}

// CheckONNXDir returns nil when dir holds an ONNX model (model.onnx or
// onnx/model.onnx, and tokenizer.json), else an error wrapping ErrNoModel:
// a cheap test for `model use --dir` and `model list`, loading nothing.
func CheckONNXDir(dir string) error {
	_, _, err := onnxModelPaths(dir)
	return err
}

// onnxModelPaths finds model.onnx and tokenizer.json in dir, or ErrNoModel.
func onnxModelPaths(dir string) (model, tok string, err error) {
	for _, p := range []string{filepath.Join(dir, ONNXModelFile), filepath.Join(dir, "onnx", ONNXModelFile)} {
		if st, e := os.Stat(p); e == nil && !st.IsDir() {
			model = p
			break
		}
	}
	if model == "" {
		return "", "", fmt.Errorf("%w: no %s in %s", ErrNoModel, ONNXModelFile, dir)
	}
	tok = filepath.Join(dir, TokenizerFile)
	if _, e := os.Stat(tok); e != nil {
		return "", "", fmt.Errorf("%w: no %s in %s", ErrNoModel, TokenizerFile, dir)
	}
	return model, tok, nil
}

// DimError: the model in Dir outputs vectors of another size than its
// profile's.
type DimError struct {
	Dir, ID   string
	Want, Got int
}

func (e *DimError) Error() string {
	return fmt.Sprintf("the model in %s outputs %d-dimensional vectors, not the %d of profile %s: "+
		"give the folder the --profile of the model it holds, or no --profile", e.Dir, e.Got, e.Want, e.ID)
}

// checkPooling rejects a profile the embedder cannot honour.
func checkPooling(p string) error {
	switch p {
	case "mean", "cls", "last":
		return nil
	}
	return fmt.Errorf("unknown pooling %q (want mean, cls or last)", p)
}

// prefixFor is the text a model expects before a query or a document.
func prefixFor(p Profile, kind Kind) string {
	if kind == Query {
		return p.QueryPrefix
	}
	return p.DocPrefix
}

// batchPlan groups text indexes by similar token length (longest first) so
// little padding is run, within the per-run text and token bounds.
func batchPlan(lens []int) [][]int {
	order := make([]int, 0, len(lens))
	for i, n := range lens {
		if n > 0 {
			order = append(order, i)
		}
	}
	// By length, descending; ties keep input order.
	slices.SortStableFunc(order, func(a, b int) int { return lens[b] - lens[a] })
	var plan [][]int
	for len(order) > 0 {
		longest := lens[order[0]]
		n := min(len(order), onnxBatchTexts, max(1, onnxBatchTokens/longest))
		plan = append(plan, order[:n:n])
		order = order[n:]
	}
	return plan
}

// poolTokens pools one row of token states (tokens×dim, right-padded; the
// first n are real) into a sentence vector, L2-normalised when normalize is set.
func poolTokens(states []float32, dim, n int, pooling string, normalize bool) []float32 {
	out := make([]float32, dim)
	if n <= 0 {
		return out
	}
	switch pooling {
	case "cls":
		copy(out, states[:dim])
	case "last":
		copy(out, states[(n-1)*dim:n*dim])
	default: // mean over the attended tokens
		acc := make([]float64, dim)
		for t := 0; t < n; t++ {
			row := states[t*dim : (t+1)*dim]
			for j, v := range row {
				acc[j] += float64(v)
			}
		}
		for j := range out {
			out[j] = float32(acc[j] / float64(n))
		}
	}
	if normalize {
		normalizeVec(out)
	}
	return out
}

// normalizeVec scales v to unit length in place (a zero vector stays zero).
func normalizeVec(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}
