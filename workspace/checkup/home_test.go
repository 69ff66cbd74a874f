package checkup

import (
	"testing"

	"github.com/megagit/megagit/internal/testhome"
)

// Every test runs in a home and PATH of its own.
func TestMain(m *testing.M) { testhome.Main(m) }
