package models

import (
	"os"
	"strings"
	"testing"
)

// TestProfileReferencesMatchRealModels checks real model folders against
// their profile's reference vectors, when MEGAGIT_TEST_MODEL_DIRS names
// them as ID=DIR,... (a folder that must fail: !ID=DIR). The models are
// too large for the repository: scripts/e2e-transformer.sh sets it for the
// int8 all-MiniLM-L6-v2 file it fetches. Skipped otherwise.
func TestProfileReferencesMatchRealModels(t *testing.T) {
	dirs := os.Getenv("MEGAGIT_TEST_MODEL_DIRS")
	if dirs == "" {
		t.Skip("MEGAGIT_TEST_MODEL_DIRS names no model folder")
	}
	_, lib := onnxTestEnv(t)
	for _, entry := range strings.Split(dirs, ",") {
		id, dir, ok := strings.Cut(entry, "=")
		if !ok {
			t.Fatalf("MEGAGIT_TEST_MODEL_DIRS: %q is not ID=DIR", entry)
		}
		id, mustFail := strings.CutPrefix(id, "!")
		t.Run(id+"="+dir, func(t *testing.T) {
			p, known := ProfileFor(id)
			if !known || p.Reference == nil {
				t.Fatalf("%s has no reference vectors", id)
			}
			err := checkReference(dir, p, lib)
			switch {
			case mustFail && err == nil:
				t.Fatalf("%s passes %s's reference check", dir, id)
			case !mustFail && err != nil:
				t.Fatal(err)
			}
			t.Log(err)
		})
	}
}
