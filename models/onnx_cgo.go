//go:build cgo && !noonnx

package models

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ONNXSupported says whether this binary can run ONNX models (built with
// cgo and without the noonnx tag).
const ONNXSupported = true

// The ONNX Runtime environment is process-wide: initialised once, from the
// first library path asked for, and kept for the life of the process.
var ortEnv struct {
	mu  sync.Mutex
	lib string
}

func initRuntime(libPath string) error {
	if libPath == "" {
		return fmt.Errorf("%w: no library path (set model.onnxruntime or MEGAGIT_ONNXRUNTIME_LIB)", ErrNoRuntime)
	}
	if _, err := os.Stat(libPath); err != nil {
		return fmt.Errorf("%w: %s: no such file (scripts/install-onnxruntime.sh installs ONNX Runtime %s)", ErrNoRuntime, libPath, RuntimeVersion)
	}
	ortEnv.mu.Lock()
	defer ortEnv.mu.Unlock()
	if ortEnv.lib != "" {
		if ortEnv.lib != libPath {
			return fmt.Errorf("ONNX Runtime is already loaded from %s, cannot also load %s", ortEnv.lib, libPath)
		}
		return nil
	}
	ort.SetSharedLibraryPath(libPath)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		msg := err.Error()
		if strings.Contains(msg, "API version") {
			msg += fmt.Sprintf(" (this build needs ONNX Runtime >= 1.24, e.g. %s)", RuntimeVersion)
		}
		return fmt.Errorf("%w: %s: %s", ErrNoRuntime, libPath, msg)
	}
	ortEnv.lib = libPath
	return nil
}

// CheckRuntime loads the ONNX Runtime library at libPath (once per
// process, as NewONNX does): nil when ONNX models can run, else an error
// wrapping ErrNoRuntime.
func CheckRuntime(libPath string) error { return initRuntime(libPath) }

// ONNXModel is an Embedder running a sentence-embedding ONNX model with its
// tokenizer.json. Safe for concurrent use (ONNX Runtime sessions are).
type ONNXModel struct {
	prof   Profile
	tok    *Tokenizer
	sess   *ort.DynamicAdvancedSession
	inputs []string
	dim    int
}

// NewONNX loads the model in dir (model.onnx + tokenizer.json) with the
// ONNX Runtime library at libPath. A missing library or model yields an
// error wrapping ErrNoRuntime or ErrNoModel. The profile gives pooling,
// prefixes and normalisation; a profile without Inputs or Dim (an unknown
// model) has them read from the model file, which costs one extra load.
// A profile's Dim is checked against the model's output at load, so a
// folder used with the wrong profile fails here, naming both sizes, not
// at the first embedding with a shape error.
func NewONNX(dir string, prof Profile, libPath string) (Embedder, error) {
	if err := checkPooling(prof.Pooling); err != nil {
		return nil, fmt.Errorf("model %s: %w", prof.ID, err)
	}
	modelPath, tokPath, err := onnxModelPaths(dir)
	if err != nil {
		return nil, err
	}
	if err := initRuntime(libPath); err != nil {
		return nil, err
	}
	if prof.ID == "" {
		prof.ID = filepath.Base(dir)
	}
	if prof.Output == "" {
		prof.Output = "last_hidden_state"
	}
	probe := true // the model's real output size is yet to be checked
	if prof.Inputs == nil || prof.Dim <= 0 {
		want := prof.Dim
		prof.Dim = 0
		if err := detectIO(modelPath, &prof); err != nil {
			return nil, fmt.Errorf("model %s: %w", prof.ID, err)
		}
		if want > 0 && want != prof.Dim {
			return nil, dimMismatch(dir, prof.ID, want, prof.Dim)
		}
		probe = false
	}
	for _, in := range prof.Inputs {
		if !feedable[in] {
			return nil, fmt.Errorf("model %s: graph input %q cannot be fed (megagit feeds input_ids, attention_mask, token_type_ids, position_ids)", prof.ID, in)
		}
	}
	tok, err := LoadTokenizer(tokPath)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", prof.ID, err)
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", prof.ID, err)
	}
	defer opts.Destroy()
	// Idle threads must not spin: a hook or a server shares the machine.
	if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return nil, fmt.Errorf("model %s: %w", prof.ID, err)
	}
	sess, err := ort.NewDynamicAdvancedSession(modelPath, prof.Inputs, []string{prof.Output}, opts)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", prof.ID, err)
	}
	m := &ONNXModel{prof: prof, tok: tok, sess: sess, inputs: prof.Inputs, dim: prof.Dim}
	if probe {
		if err := m.checkDim(dir); err != nil {
			m.Close()
			return nil, err
		}
	}
	return m, nil
}

// checkDim runs one short text (about a millisecond on a small model, once
// per process) and compares the output's hidden size with the profile's:
// reading it from the model file instead would load the model twice.
func (m *ONNXModel) checkDim(dir string) error {
	got := 0
	err := m.forward([][]int32{m.tok.Encode("dimension check")}, func(shape ort.Shape, _ []float32, _ int) error {
		if n := len(shape); n == 2 || n == 3 {
			got = int(shape[n-1])
			return nil
		}
		return fmt.Errorf("output %s has shape %v, want [batch tokens hidden] or [batch hidden]", m.prof.Output, shape)
	})
	if err != nil {
		return fmt.Errorf("model %s: %w", m.prof.ID, err)
	}
	if got != m.dim {
		return dimMismatch(dir, m.prof.ID, m.dim, got)
	}
	return nil
}

// dimMismatch: the folder holds another model than the profile describes.
func dimMismatch(dir, id string, want, got int) error {
	return &DimError{Dir: dir, ID: id, Want: want, Got: got}
}

var feedable = map[string]bool{"input_ids": true, "attention_mask": true, "token_type_ids": true, "position_ids": true}

// detectIO reads the graph's input names and hidden size (unknown models).
func detectIO(modelPath string, prof *Profile) error {
	ins, outs, err := ort.GetInputOutputInfo(modelPath)
	if err != nil {
		return err
	}
	if prof.Inputs == nil {
		for _, in := range ins {
			prof.Inputs = append(prof.Inputs, in.Name)
		}
	}
	for _, o := range outs {
		if o.Name != prof.Output {
			continue
		}
		if n := len(o.Dimensions); n >= 2 && o.Dimensions[n-1] > 0 {
			if prof.Dim <= 0 {
				prof.Dim = int(o.Dimensions[n-1])
			}
			return nil
		}
		return fmt.Errorf("output %s has no fixed hidden size %v", o.Name, o.Dimensions)
	}
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.Name
	}
	return fmt.Errorf("no output %q (outputs: %s)", prof.Output, strings.Join(names, ", "))
}

// ID names the model (its profile id).
func (m *ONNXModel) ID() string { return m.prof.ID }

// Dim is the sentence vector length.
func (m *ONNXModel) Dim() int { return m.dim }

// Profile is the profile the model runs with (inputs and dim resolved).
func (m *ONNXModel) Profile() Profile { return m.prof }

// Close frees the session; the runtime stays loaded for the process.
func (m *ONNXModel) Close() error { return m.sess.Destroy() }

// Embed tokenises each text with the profile's prefix for kind, runs the
// model in length-sorted batches and pools each text's token states. A blank
// text gets a zero vector.
func (m *ONNXModel) Embed(texts []string, kind Kind) ([][]float32, error) {
	prefix := prefixFor(m.prof, kind)
	ids := make([][]int32, len(texts))
	lens := make([]int, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		ids[i] = m.tok.Encode(prefix + t)
		lens[i] = len(ids[i])
	}
	out := make([][]float32, len(texts))
	for _, batch := range batchPlan(lens) {
		rows := make([][]int32, len(batch))
		for j, i := range batch {
			rows[j] = ids[i]
		}
		vecs, err := m.run(rows)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.prof.ID, err)
		}
		for j, i := range batch {
			out[i] = vecs[j]
		}
	}
	for i := range out {
		if out[i] == nil {
			out[i] = make([]float32, m.dim)
		}
	}
	return out, nil
}

// run embeds one batch: right-padded int64 inputs, one output, pooled.
func (m *ONNXModel) run(rows [][]int32) ([][]float32, error) {
	b := len(rows)
	vecs := make([][]float32, b)
	err := m.forward(rows, func(got ort.Shape, states []float32, seq int) error {
		switch {
		case len(got) == 3 && got[0] == int64(b) && got[1] == int64(seq) && got[2] == int64(m.dim):
			for r, row := range rows {
				vecs[r] = poolTokens(states[r*seq*m.dim:(r+1)*seq*m.dim], m.dim, len(row), m.prof.Pooling, m.prof.Normalize)
			}
		case len(got) == 2 && got[0] == int64(b) && got[1] == int64(m.dim): // already pooled
			for r := range rows {
				vecs[r] = append([]float32(nil), states[r*m.dim:(r+1)*m.dim]...)
				if m.prof.Normalize {
					normalizeVec(vecs[r])
				}
			}
		default:
			return fmt.Errorf("output %s has shape %v, want [%d %d %d]", m.prof.Output, got, b, seq, m.dim)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return vecs, nil
}

// forward runs the session on one batch of right-padded rows and hands
// the output's shape, data and padded length to use; the data is ONNX
// Runtime's memory, valid only until use returns.
func (m *ONNXModel) forward(rows [][]int32, use func(shape ort.Shape, states []float32, seq int) error) error {
	b, seq := len(rows), 0
	for _, r := range rows {
		seq = max(seq, len(r))
	}
	shape := ort.NewShape(int64(b), int64(seq))
	data := make(map[string][]int64, len(m.inputs))
	for _, name := range m.inputs {
		data[name] = make([]int64, b*seq) // zeros: padding id, mask 0, token type 0
	}
	for r, row := range rows {
		for t, id := range row {
			k := r*seq + t
			if v := data["input_ids"]; v != nil {
				v[k] = int64(id)
			}
			if v := data["attention_mask"]; v != nil {
				v[k] = 1
			}
			if v := data["position_ids"]; v != nil {
				v[k] = int64(t)
			}
		}
	}
	inputs := make([]ort.Value, len(m.inputs))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, name := range m.inputs {
		t, err := ort.NewTensor(shape, data[name])
		if err != nil {
			return err
		}
		inputs[i] = t
	}
	outputs := []ort.Value{nil}
	if err := m.sess.Run(inputs, outputs); err != nil {
		return err
	}
	defer outputs[0].Destroy()
	res, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return fmt.Errorf("output %s is not a float32 tensor", m.prof.Output)
	}
	return use(res.GetShape(), res.GetData(), seq)
}
