package embedcache

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"math"
	"testing"

	"github.com/megagit/megagit/embedcache/staticmodel"
)

// The shipped model files, pinned: a change means the model was retrained
// and BENCHMARKS.md and the README's figures must be re-measured.
var builtinFullSHA = map[string]string{
	"vectors.npy": "b9202d7305a5f15d9688201e471de56d3201dc0ac5dab9b216a09c4589e7a5c5",
	"scales.npy":  "4b2a11e09dd5edd6fd20a2b3140dff094297e16fee7333049727fcba0982c655",
}

func TestBuiltinModelIsPinnedAndLoads(t *testing.T) {
	for name, want := range builtinFullSHA {
		data, err := fs.ReadFile(staticmodel.BuiltinFS(), "models/"+BuiltinID+"/"+name)
		if err != nil {
			t.Fatalf("embedded %s: %v", name, err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s sha256 %s, want %s", name, got, want)
		}
	}
	m, err := Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	if m.ID() != BuiltinID || m.Dim() != StaticProfile.Dim {
		t.Fatalf("id %s dim %d", m.ID(), m.Dim())
	}
	v, err := m.Embed([]string{"validate the stripe webhook signature", "parse a pdf invoice", "webhook signature check"}, Query)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v {
		var n float64
		for _, f := range x {
			n += float64(f) * float64(f)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("vector %d has norm² %v", i, n)
		}
	}
	cos := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return
	}
	// Related software texts sit closer than unrelated ones.
	if cos(v[0], v[2]) <= cos(v[0], v[1]) {
		t.Errorf("cos(webhook, webhook) %.3f <= cos(webhook, pdf) %.3f", cos(v[0], v[2]), cos(v[0], v[1]))
	}
}
