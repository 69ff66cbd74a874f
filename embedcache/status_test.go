package embedcache

import (
	"os"
	"path/filepath"
	"testing"
)

// A registry with no active model and one folder of another model: a
// lexical note and an other-model row, and doctor's check of that folder.
func TestStatusLexicalAndOthers(t *testing.T) {
	root := t.TempDir()
	dir := CacheDir(root, "old-model")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := Status(StatusInput{Root: root, LocalDir: filepath.Join(root, ".megagit", "local"), ModelID: "none"})
	if r.Model != "" || len(r.Caches) != 1 || len(r.Problems) != 0 || len(r.Notes) != 2 {
		t.Fatalf("report: %+v", r)
	}
	c := r.Caches[0]
	if c.Kind != "other-model" || c.Dir != ".megagit/embeddings/old-model" || c.Integrity != IntegrityCorrupt {
		t.Fatalf("other model: %+v", c)
	}
	checks := CheckCommitted(root)
	if len(checks) != 1 || checks[0].Name != "old-model" || checks[0].Err == nil || checks[0].Err.Error() != "index.json is missing" {
		t.Fatalf("checks: %+v", checks)
	}
	if got := CheckCommitted(t.TempDir()); got != nil {
		t.Fatalf("no cache: %+v", got)
	}
}

func TestRestoreFirst(t *testing.T) {
	for name, tc := range map[string]struct {
		untracked, modified bool
		want                string
	}{
		"committed": {want: "megagit embed"},
		"untracked": {untracked: true, want: "rm -r d && megagit embed"},
		"modified":  {modified: true, want: "git checkout -- d && megagit embed"},
	} {
		t.Run(name, func(t *testing.T) {
			head := func(string, ...string) (bool, bool) { return tc.untracked, tc.modified }
			if got := restoreFirst(head, "d")("megagit embed"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
