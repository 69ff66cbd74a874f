package models

import (
	"os"
	"testing"

	"github.com/megagit/megagit/internal/testhome"
)

// Every test runs in a home and PATH of its own: none reads the user's
// skills, registries or settings, nor runs an installed megagit. The ONNX
// Runtime library is a tool the tests need: its default place is in the
// user's data folder (scripts/install-onnxruntime.sh puts it there), so it
// is found before HOME moves.
func TestMain(m *testing.M) {
	os.Setenv("MEGAGIT_ONNXRUNTIME_LIB", RuntimePath(os.Getenv("MEGAGIT_ONNXRUNTIME_LIB")))
	testhome.Main(m)
}
