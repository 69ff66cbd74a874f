package registry

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/megagit/megagit/registry/local"
)

func TestHeadState(t *testing.T) {
	const dir = EmbeddingsDir + "/m"
	names := []string{"index.json", "vectors.npy"}
	tests := []struct {
		name  string
		setup func(t *testing.T, r *Registry) // after index.json and vectors.npy are committed
		dir   string
		names []string
		want  PathState
	}{
		{"as committed", nil, dir, names, PathCommitted},
		{"no files asked", nil, dir, nil, PathCommitted},
		{"one file edited", func(t *testing.T, r *Registry) { writeRel(t, r, dir+"/vectors.npy", "damaged") }, dir, names, PathModified},
		{"one file deleted", func(t *testing.T, r *Registry) { removeRel(t, r, dir+"/index.json") }, dir, names, PathModified},
		{"folder never committed", nil, EmbeddingsDir + "/other", names, PathUntracked},
		{"a file never committed", func(t *testing.T, r *Registry) { writeRel(t, r, dir+"/extra.bin", "x") }, dir, []string{"index.json", "extra.bin"}, PathUntracked},
		// Files are judged in order: the first one decides.
		{"edited before untracked", func(t *testing.T, r *Registry) {
			writeRel(t, r, dir+"/index.json", "{}")
			writeRel(t, r, dir+"/extra.bin", "x")
		}, dir, []string{"index.json", "extra.bin"}, PathModified},
		{"untracked before edited", func(t *testing.T, r *Registry) {
			writeRel(t, r, dir+"/index.json", "{}")
			writeRel(t, r, dir+"/extra.bin", "x")
		}, dir, []string{"extra.bin", "index.json"}, PathUntracked},
		{"edit committed", func(t *testing.T, r *Registry) {
			if _, err := r.CommitFiles("embeddings: again", map[string][]byte{dir + "/vectors.npy": []byte("v2")}); err != nil {
				t.Fatal(err)
			}
		}, dir, names, PathCommitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRegistry(t)
			commitCache(t, r, dir)
			if tt.setup != nil {
				tt.setup(t, r)
			}
			got, err := r.HeadState(tt.dir, tt.names...)
			if err != nil || got != tt.want {
				t.Fatalf("HeadState(%q, %q) = %v, %v; want %v", tt.dir, tt.names, got, err, tt.want)
			}
		})
	}
}

// A registry in a sub-folder of its git work tree: HEAD's paths carry the
// prefix, the argument does not.
func TestHeadStateRegistryInSubfolder(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Test User")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("HOME", t.TempDir())
	top := t.TempDir()
	if _, err := git.PlainInit(top, false); err != nil {
		t.Fatal(err)
	}
	r, _, err := Init(filepath.Join(top, "team", "reg"), []byte("roots: [skills]\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const dir = EmbeddingsDir + "/m"
	commitCache(t, r, dir)
	if got, err := r.HeadState(dir, "index.json", "vectors.npy"); err != nil || got != PathCommitted {
		t.Fatalf("committed: HeadState = %v, %v", got, err)
	}
	writeRel(t, r, dir+"/index.json", "{}")
	if got, err := r.HeadState(dir, "index.json", "vectors.npy"); err != nil || got != PathModified {
		t.Fatalf("edited: HeadState = %v, %v", got, err)
	}
}

// Before the first commit nothing can be restored from HEAD.
func TestHeadStateUnbornHead(t *testing.T) {
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, local.MetaDir), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := openAt(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.HeadState(EmbeddingsDir+"/m", "index.json"); err != nil || got != PathUntracked {
		t.Fatalf("HeadState = %v, %v; want untracked", got, err)
	}
}

func TestHeadStateRefusesPathsOutside(t *testing.T) {
	r := newTestRegistry(t)
	for _, dir := range []string{"", "../elsewhere", "/tmp/x", filepath.Join(r.Root(), EmbeddingsDir)} {
		if _, err := r.HeadState(dir, "index.json"); !errors.Is(err, local.ErrInvalid) {
			t.Errorf("HeadState(%q) err = %v, want local.ErrInvalid", dir, err)
		}
	}
}

func TestPathStateString(t *testing.T) {
	for s, want := range map[PathState]string{PathCommitted: "committed", PathModified: "modified", PathUntracked: "untracked", 7: "PathState(7)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(s), got, want)
		}
	}
}

// commitCache commits an index.json and a vectors.npy under dir.
func commitCache(t *testing.T, r *Registry, dir string) {
	t.Helper()
	if _, err := r.CommitFiles("embeddings: test", map[string][]byte{
		dir + "/index.json":  []byte(`{"rows":[]}`),
		dir + "/vectors.npy": []byte("v1"),
	}); err != nil {
		t.Fatal(err)
	}
}

func writeRel(t *testing.T, r *Registry, rel, data string) {
	t.Helper()
	if err := os.WriteFile(r.abs(rel), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeRel(t *testing.T, r *Registry, rel string) {
	t.Helper()
	if err := os.Remove(r.abs(rel)); err != nil {
		t.Fatal(err)
	}
}
