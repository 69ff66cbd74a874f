package registry

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/registry/gitstore"
)

// Folders whose files CommitFiles may write: generated data (the embedding
// cache, adapted models) that a team shares through the repository.
const (
	EmbeddingsDir = ".megagit/embeddings"
	ModelsDir     = ".megagit/models"
)

// CommitFiles writes files (registry-relative, slash-separated paths under
// .megagit/embeddings/ or .megagit/models/) and commits exactly them, so
// generated data is shared like a verdict and the user's own staged work is
// never swept in. subject is the message's first line; a body and trailers
// may follow it. Files equal to HEAD's are left out; nothing changed gives
// the zero hash and no commit.
func (r *Registry) CommitFiles(subject string, files map[string][]byte) (gitstore.Hash, error) {
	if strings.TrimSpace(subject) == "" {
		return gitstore.ZeroHash, fmt.Errorf("%w: commit subject is empty", errkind.ErrInvalid)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		if err := generatedPath(p); err != nil {
			return gitstore.ZeroHash, err
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return r.Write(func() (string, []Change, error) {
		_, head, err := r.Head()
		if err != nil {
			return "", nil, err
		}
		tree, err := r.CommitTree(head)
		if err != nil {
			return "", nil, err
		}
		var changes []Change
		for _, p := range paths {
			old, ok, err := r.blobAt(tree, p)
			if err != nil {
				return "", nil, err
			}
			if ok && bytes.Equal(old, files[p]) {
				continue
			}
			changes = append(changes, Change{Path: p, Data: files[p]})
		}
		msg := strings.TrimRight(subject, "\n") + "\n"
		return msg, changes, nil
	})
}

// generatedPath accepts a clean relative path to a file inside one of the
// generated-data folders and nothing else.
func generatedPath(p string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: path %q: %s", errkind.ErrInvalid, p, why)
	}
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || path.Clean(p) != p {
		return bad("want a clean registry-relative path with forward slashes")
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." {
			return bad("want a clean registry-relative path with forward slashes")
		}
	}
	for _, dir := range []string{EmbeddingsDir, ModelsDir} {
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok && rest != "" {
			return nil
		}
	}
	return bad("megagit commits generated files only under " + EmbeddingsDir + "/ and " + ModelsDir + "/")
}
