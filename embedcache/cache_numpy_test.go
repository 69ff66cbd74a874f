package embedcache

import (
	"os/exec"
	"strconv"
	"testing"

	"github.com/megagit/megagit/internal/numpytest"
)

// The committed cache is meant to be read by numpy users: vectors.npy
// (float32 or float16) loads with np.load, row i is index.json's row i,
// and a pair of files numpy wrote loads back into a Cache.
func TestCacheNumpyInterop(t *testing.T) {
	py := numpytest.Python(t)
	e := &countingEmbedder{dim: 8}
	items := docs("validate webhooks", "extract pdf text", "shrink docker images")
	for _, f16 := range []bool{false, true} {
		dir := savedCache(t, e, f16, "validate webhooks", "extract pdf text", "shrink docker images")
		c := OpenCache(dir, e.ID(), e.Dim(), func(s string) { t.Fatal(s) })
		want, _ := c.Get(TextSHA("extract pdf text"))
		script := `
import json, sys, hashlib
import numpy as np
d, want = sys.argv[1], [float(x) for x in sys.argv[2:]]
idx = json.load(open(d + "/index.json"))
a = np.load(d + "/vectors.npy")
assert a.dtype == np.dtype(idx["dtype"]) and a.shape == (len(idx["rows"]), idx["dim"]), (a.dtype, a.shape)
assert hashlib.sha256(open(d + "/vectors.npy", "rb").read()).hexdigest() == idx["vectors_sha256"]
i = [r["skill"] for r in idx["rows"]].index("skill-b")
assert a[i].astype(np.float32).tolist() == np.array(want, dtype=np.float32).tolist(), (a[i], want)
# numpy writes a cache of its own: doubled vectors, the other dtype.
b = (a.astype(np.float32) * 2).astype(np.float32 if idx["dtype"] == "float16" else np.float16)
np.save(d + "/vectors.npy", b)
idx["dtype"] = str(b.dtype)
idx["vectors_sha256"] = hashlib.sha256(open(d + "/vectors.npy", "rb").read()).hexdigest()
json.dump(idx, open(d + "/index.json", "w"))
`
		args := []string{"-c", script, dir}
		for _, x := range want {
			args = append(args, strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		if out, err := exec.Command(py, args...).CombinedOutput(); err != nil {
			t.Fatalf("float16=%v: numpy: %v\n%s", f16, err, out)
		}
		back := OpenCache(dir, e.ID(), e.Dim(), func(s string) { t.Fatalf("numpy-written cache: %s", s) })
		got, ok := back.Get(TextSHA(items[1].Text))
		if !ok || back.Len() != 4 {
			t.Fatalf("float16=%v: numpy-written cache: %d rows", f16, back.Len())
		}
		for j := range got {
			if d := got[j] - 2*want[j]; d > 2e-3 || d < -2e-3 {
				t.Fatalf("float16=%v: [%d] %g, want %g", f16, j, got[j], 2*want[j])
			}
		}
		if _, ok := back.Anchor(); !ok {
			t.Fatal("anchor lost through numpy")
		}
	}
}
