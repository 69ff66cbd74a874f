package inject

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/index"
)

// TestSettingsRoundTrip checks saved settings read back exactly (every
// ranker setting included: the compiled index is keyed by them), and are
// refused as stale once anything they were resolved from changes.
func TestSettingsRoundTrip(t *testing.T) {
	root := t.TempDir()
	dir := local.Open(root, time.Second)
	rc := ranker.DefaultConfig()
	rc.K1, rc.Fields.Headings.Weight, rc.Blend.Enabled, rc.MMR.Lambda = 1.7, 0.3, true, 0.55
	rc.DynamicK = ranker.ProfileFor("dense")
	s := &Settings{
		Deadline: 750 * time.Millisecond, Shadow: true, Output: "json", LogPrompts: true,
		Route: route.Settings{TopK: 4, NoDynamic: true, Format: "compose", Budget: 900},
		Roots: []string{"skills", "more/skills"}, LockTimeout: 3 * time.Second, Ranker: rc,
		DynamicK: route.DynamicKOverride{Tier: "dense", AbsFloor: 0.21}, Model: ModelONNX, ServeKey: "k",
		Serve: "auto", ServeIdle: 30 * time.Minute, ServeFiles: []string{"/models/tiny/model.onnx"},
		FallbackID: "megagit-static-v3", FallbackKey: "megagit-static-v3@1", FallbackDense: route.DenseProfile{FusionW: 0.4, Tier: "dense"},
		Notes: []string{`config: field blend.count_w (from env MEGA_EVAL_COUNT_W): "abc" is not a number; using the default, 0.1`},
	}
	cfg := filepath.Join(root, filepath.FromSlash(local.ConfigPath))
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("route:\n  top_k: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := []string{"MEGAGIT_TEST_A", "MEGAGIT_TEST_B"}
	t.Setenv("MEGAGIT_TEST_A", "1")
	if _, err := LoadSettings(dir, root, "v1"); !errors.Is(err, ErrStale) {
		t.Fatalf("no saved settings: err %v, want ErrStale", err)
	}
	if err := SaveSettings(dir, root, "v1", names, s); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSettings(dir, root, "v1")
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("read back %+v, %v\nwant %+v", got, err, s)
	}
	if index.RankerKey(got.Ranker) != index.RankerKey(rc) {
		t.Fatal("the ranker settings read back key a different compiled index")
	}

	// Saving the same settings again leaves the file alone.
	p := filepath.Join(dir.Path(), SettingsFile)
	before, _ := os.Stat(p)
	if err := SaveSettings(dir, root, "v1", names, s); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(p); !os.SameFile(before, after) {
		t.Error("unchanged settings were written again")
	}

	stale := func(what string, load func() error) {
		t.Helper()
		if err := load(); !errors.Is(err, ErrStale) {
			t.Errorf("%s: err %v, want ErrStale", what, err)
		}
	}
	stale("another version", func() error { _, err := LoadSettings(dir, root, "v2"); return err })
	if _, err := LoadSettings(dir, root, "v2"); !errors.Is(err, ErrOtherVersion) {
		t.Errorf("another version: err %v, want ErrOtherVersion", err)
	}
	stale("another root", func() error { _, err := LoadSettings(dir, root+"/x", "v1"); return err })
	t.Setenv("MEGAGIT_TEST_B", "")
	stale("a variable set, even empty", func() error { _, err := LoadSettings(dir, root, "v1"); return err })
	os.Unsetenv("MEGAGIT_TEST_B")
	if _, err := LoadSettings(dir, root, "v1"); err != nil {
		t.Fatalf("environment back as it was: %v", err)
	}
	if err := os.WriteFile(cfg, []byte("route:\n  top_k: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale("the config file changed", func() error { _, err := LoadSettings(dir, root, "v1"); return err })
	if err := os.WriteFile(p, []byte("{junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale("a damaged file", func() error { _, err := LoadSettings(dir, root, "v1"); return err })
}

func TestCacheGuard(t *testing.T) {
	g := newCacheGuard()
	release := g.hold()
	if g.wait(10 * time.Millisecond) {
		t.Fatal("wait took a guard that is held")
	}
	release()
	if !g.wait(time.Second) {
		t.Fatal("wait did not take a free guard")
	}
	var none cacheGuard
	none.hold()() // a nil guard never blocks
}
