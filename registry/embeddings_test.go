package registry_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

func TestCommitFiles(t *testing.T) {
	r := registrytest.New(t, "alpha")
	if err := os.WriteFile(r.Abs("notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	registrytest.Git(t, r, "add", "notes.txt")
	files := map[string][]byte{
		".megagit/embeddings/m1/vectors.npy": []byte("vectors"),
		".megagit/embeddings/m1/index.json":  []byte("{}\n"),
	}
	hash, err := r.CommitFiles("embeddings(m1): embed 1 skill\n\nMegagit-Action: embed\n", files)
	if err != nil || hash.IsZero() {
		t.Fatalf("first commit: %s, %v", hash, err)
	}
	if got := registrytest.ReadFile(t, r.Abs(".megagit/embeddings/m1/index.json")); got != "{}\n" {
		t.Errorf("work tree file = %q", got)
	}
	shown := registrytest.Git(t, r, "show", "--name-only", "--format=%s", "HEAD")
	if !strings.Contains(shown, ".megagit/embeddings/m1/vectors.npy") || strings.Contains(shown, "notes.txt") {
		t.Errorf("commit holds the wrong files:\n%s", shown)
	}
	if st := registrytest.Git(t, r, "status", "--porcelain"); st != "A  notes.txt\n" {
		t.Errorf("status after commit = %q, want only the user's staged file", st)
	}

	// Same content: no commit.
	again, err := r.CommitFiles("embeddings(m1): again", files)
	if err != nil || !again.IsZero() {
		t.Fatalf("unchanged files: %s, %v; want no commit", again, err)
	}
	// One changed file: a commit with only that file.
	files[".megagit/embeddings/m1/index.json"] = []byte("{\"rows\": []}\n")
	if h, err := r.CommitFiles("embeddings(m1): update", files); err != nil || h.IsZero() {
		t.Fatalf("changed file: %s, %v", h, err)
	}
	if shown := registrytest.Git(t, r, "show", "--name-only", "--format=", "HEAD"); strings.TrimSpace(shown) != ".megagit/embeddings/m1/index.json" {
		t.Errorf("second commit files = %q", shown)
	}
	registrytest.Git(t, r, "fsck", "--strict")
}

func TestCommitFilesRefusesOtherPaths(t *testing.T) {
	r := registrytest.New(t, "alpha")
	for _, p := range []string{
		"skills/alpha/SKILL.md", ".megagit/config.yaml", ".megagit/embeddings/", ".megagit/embeddings",
		".megagit/embeddings/../config.yaml", "/etc/passwd", ".megagit/models/./x", ".megagit/models//x",
		`.megagit\models\x`, "",
	} {
		_, err := r.CommitFiles("x", map[string][]byte{p: []byte("x")})
		if !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("%q: err = %v, want errkind.ErrInvalid", p, err)
		}
	}
	if _, err := r.CommitFiles(" ", map[string][]byte{".megagit/models/m/model.json": nil}); !errors.Is(err, errkind.ErrInvalid) {
		t.Errorf("empty subject: err = %v, want errkind.ErrInvalid", err)
	}
}

func TestCommitFilesRefusesUserEdits(t *testing.T) {
	r := registrytest.New(t, "alpha")
	p := ".megagit/models/m/model.json"
	if _, err := r.CommitFiles("model: add", map[string][]byte{p: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Abs(p), []byte("my edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CommitFiles("model: update", map[string][]byte{p: []byte("b")}); !errors.Is(err, registry.ErrDirty) {
		t.Fatalf("err = %v, want ErrDirty", err)
	}
}
