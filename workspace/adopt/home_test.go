package adopt

import (
	"testing"

	"github.com/megagit/megagit/internal/testhome"
)

// Every test runs in a home and PATH of its own: none reads the user's
// skills, registries or settings, nor runs an installed megagit.
func TestMain(m *testing.M) { testhome.Main(m) }
