package models

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"testing"

	"github.com/megagit/megagit/models/staticmodel"
)

// The shipped models' files, pinned: a change means a model was retrained
// and BENCHMARKS.md, the README's figures and its folder's README (which
// lists these digests) must be re-measured; a shipped model's gate
// (route/gates/<id>.json) must be fitted again.
var builtinFullSHA = map[string]map[string]string{
	BuiltinID: {
		"model.json":  "f6f34e1a72acb778b2ab9457f7a44c90b38b2a1641ab674e8205ed16df894cea",
		"vectors.npy": "fa9276092e7b1c01fabffa0583d660a41974a82007f351c4c3578bf2ab8b4af3",
		"scales.npy":  "37d94feda0fde858cc4a7ff109fb4df1b2974bc9ae97c14c3feeebf70a0c7026",
	},
}

func TestBuiltinModelIsPinnedAndLoads(t *testing.T) {
	if ids := BuiltinIDs(); len(ids) != len(builtinFullSHA) || ids[0] != BuiltinID {
		t.Fatalf("BuiltinIDs() = %v, want the %d pinned models, the default %s first", ids, len(builtinFullSHA), BuiltinID)
	}
	for _, id := range BuiltinIDs() {
		t.Run(id, func(t *testing.T) { testBuiltinModel(t, id) })
	}
	if m, err := Builtin(); err != nil || m.ID() != BuiltinID {
		t.Fatalf("Builtin() is not the default %s: %v", BuiltinID, err)
	}
	if _, err := BuiltinModel("megagit-static-v0"); err == nil || errors.Is(err, ErrNoBuiltin) {
		t.Fatalf("BuiltinModel of an unknown id: %v, want an error naming the built-in models", err)
	}
}

func testBuiltinModel(t *testing.T, id string) {
	want, ok := builtinFullSHA[id]
	if !ok {
		t.Fatalf("%s is built in but its files are not pinned here", id)
	}
	for name, want := range want {
		data, err := fs.ReadFile(staticmodel.BuiltinFS(), "models/"+id+"/"+name)
		if err != nil {
			t.Fatalf("embedded %s: %v", name, err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s sha256 %s, want %s", name, got, want)
		}
	}
	m, err := BuiltinModel(id)
	if err != nil {
		t.Fatalf("BuiltinModel: %v", err)
	}
	prof, ok := BuiltinProfile(id)
	if !ok || !prof.Builtin || m.ID() != id || m.Dim() != prof.Dim {
		t.Fatalf("id %s dim %d, profile %+v", m.ID(), m.Dim(), prof)
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
