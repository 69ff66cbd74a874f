package inject

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/ranker"
)

// agentDocs are the documents ids name, in that order, with each SKILL.md
// path as the agent can open it from its working directory cwd: relative
// when the skill lies inside cwd, absolute otherwise. (A document's path
// is relative to the registry at root for the registry's own skills,
// absolute for the other sources'.) The returned indices name the copies.
func agentDocs(docs []ranker.Doc, ids []int, root, cwd string) ([]ranker.Doc, []int) {
	if !filepath.IsAbs(cwd) {
		cwd, _ = os.Getwd()
	}
	bases := []string{filepath.Clean(cwd)}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != bases[0] {
		bases = append(bases, real)
	}
	out := make([]ranker.Doc, len(ids))
	idx := make([]int, len(ids))
	for i, d := range ids {
		out[i], idx[i] = docs[d], i
		out[i].Path = agentPath(out[i].Path, root, bases)
	}
	return out, idx
}

// agentPath is one SKILL.md path as agentDocs makes it.
func agentPath(p, root string, bases []string) string {
	if p == "" {
		return p
	}
	abs := filepath.FromSlash(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	for _, b := range bases {
		if b == "" || b == "/" {
			continue
		}
		if rest, ok := strings.CutPrefix(abs, b+string(os.PathSeparator)); ok {
			return filepath.ToSlash(rest)
		}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		for _, b := range bases {
			if rest, ok := strings.CutPrefix(real, b+string(os.PathSeparator)); ok && b != "/" {
				return filepath.ToSlash(rest)
			}
		}
	}
	return abs
}
