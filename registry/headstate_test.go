package registry_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/registrytest"
)

func TestHeadState(t *testing.T) {
	const dir = registry.EmbeddingsDir + "/m"
	names := []string{"index.json", "vectors.npy"}
	tests := []struct {
		name  string
		setup func(t *testing.T, r *registry.Registry) // after index.json and vectors.npy are committed
		dir   string
		names []string
		want  registry.PathState
	}{
		{"as committed", nil, dir, names, registry.PathCommitted},
		{"no files asked", nil, dir, nil, registry.PathCommitted},
		{"one file edited", func(t *testing.T, r *registry.Registry) { writeRel(t, r, dir+"/vectors.npy", "damaged") }, dir, names, registry.PathModified},
		{"one file deleted", func(t *testing.T, r *registry.Registry) { removeRel(t, r, dir+"/index.json") }, dir, names, registry.PathModified},
		{"folder never committed", nil, registry.EmbeddingsDir + "/other", names, registry.PathUntracked},
		{"a file never committed", func(t *testing.T, r *registry.Registry) { writeRel(t, r, dir+"/extra.bin", "x") }, dir, []string{"index.json", "extra.bin"}, registry.PathUntracked},
		// Files are judged in order: the first one decides.
		{"edited before untracked", func(t *testing.T, r *registry.Registry) {
			writeRel(t, r, dir+"/index.json", "{}")
			writeRel(t, r, dir+"/extra.bin", "x")
		}, dir, []string{"index.json", "extra.bin"}, registry.PathModified},
		{"untracked before edited", func(t *testing.T, r *registry.Registry) {
			writeRel(t, r, dir+"/index.json", "{}")
			writeRel(t, r, dir+"/extra.bin", "x")
		}, dir, []string{"extra.bin", "index.json"}, registry.PathUntracked},
		{"edit committed", func(t *testing.T, r *registry.Registry) {
			if _, err := r.CommitFiles("embeddings: again", map[string][]byte{dir + "/vectors.npy": []byte("v2")}); err != nil {
				t.Fatal(err)
			}
		}, dir, names, registry.PathCommitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := registrytest.New(t)
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
	r, _, err := registry.Init(filepath.Join(top, "team", "reg"), []byte("roots: [skills]\n"), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const dir = registry.EmbeddingsDir + "/m"
	commitCache(t, r, dir)
	if got, err := r.HeadState(dir, "index.json", "vectors.npy"); err != nil || got != registry.PathCommitted {
		t.Fatalf("committed: HeadState = %v, %v", got, err)
	}
	writeRel(t, r, dir+"/index.json", "{}")
	if got, err := r.HeadState(dir, "index.json", "vectors.npy"); err != nil || got != registry.PathModified {
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
	r, err := registry.OpenAt(root, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.HeadState(registry.EmbeddingsDir+"/m", "index.json"); err != nil || got != registry.PathUntracked {
		t.Fatalf("HeadState = %v, %v; want untracked", got, err)
	}
}

func TestHeadStateRefusesPathsOutside(t *testing.T) {
	r := registrytest.New(t)
	for _, dir := range []string{"", "../elsewhere", "/tmp/x", filepath.Join(r.Root(), registry.EmbeddingsDir)} {
		if _, err := r.HeadState(dir, "index.json"); !errors.Is(err, errkind.ErrInvalid) {
			t.Errorf("HeadState(%q) err = %v, want errkind.ErrInvalid", dir, err)
		}
	}
}

func TestPathStateString(t *testing.T) {
	for s, want := range map[registry.PathState]string{registry.PathCommitted: "committed", registry.PathModified: "modified", registry.PathUntracked: "untracked", 7: "PathState(7)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(s), got, want)
		}
	}
}

// commitCache commits an index.json and a vectors.npy under dir.
func commitCache(t *testing.T, r *registry.Registry, dir string) {
	t.Helper()
	if _, err := r.CommitFiles("embeddings: test", map[string][]byte{
		dir + "/index.json":  []byte(`{"rows":[]}`),
		dir + "/vectors.npy": []byte("v1"),
	}); err != nil {
		t.Fatal(err)
	}
}

func writeRel(t *testing.T, r *registry.Registry, rel, data string) {
	t.Helper()
	if err := os.WriteFile(r.Abs(rel), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func removeRel(t *testing.T, r *registry.Registry, rel string) {
	t.Helper()
	if err := os.Remove(r.Abs(rel)); err != nil {
		t.Fatal(err)
	}
}
