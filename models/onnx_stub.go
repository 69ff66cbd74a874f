//go:build !cgo || noonnx

package models

import "fmt"

// ONNXSupported says whether this binary can run ONNX models: this one was
// built without cgo or with the noonnx tag, so it routes with BM25F and the
// built-in static model only.
const ONNXSupported = false

// ONNXModel is not available in this build; see NewONNX.
type ONNXModel struct{ prof Profile }

// NewONNX always fails with ErrNoRuntime in this build.
func NewONNX(dir string, prof Profile, libPath string) (Embedder, error) {
	return nil, fmt.Errorf("%w: ONNX support not in this build (built without cgo or with -tags noonnx)", ErrNoRuntime)
}

// ID names the model.
func (m *ONNXModel) ID() string { return m.prof.ID }

// Dim is the sentence vector length.
func (m *ONNXModel) Dim() int { return m.prof.Dim }

// Profile is the model's profile.
func (m *ONNXModel) Profile() Profile { return m.prof }

// Close does nothing in this build.
func (m *ONNXModel) Close() error { return nil }

// Embed always fails with ErrNoRuntime in this build.
func (m *ONNXModel) Embed(texts []string, kind Kind) ([][]float32, error) {
	return nil, fmt.Errorf("%w: ONNX support not in this build", ErrNoRuntime)
}

// CheckRuntime always fails with ErrNoRuntime in this build.
func CheckRuntime(libPath string) error {
	return fmt.Errorf("%w: ONNX support not in this build (built without cgo or with -tags noonnx)", ErrNoRuntime)
}
