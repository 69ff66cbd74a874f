package registry

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/megagit/megagit/registry/local"
)

// relPath turns a work-tree-relative git path into a registry-relative one
// (with "../" steps when it lies outside a registry kept in a subfolder).
func (r *Registry) relPath(gitPath string) string {
	if r.prefix == "" {
		return gitPath
	}
	if rest, ok := strings.CutPrefix(gitPath, r.prefix+"/"); ok {
		return rest
	}
	return strings.Repeat("../", strings.Count(r.prefix, "/")+1) + gitPath
}

// blob reads a blob's bytes.
func (r *Registry) blob(h plumbing.Hash) ([]byte, error) {
	b, err := r.repo.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(rd)
	return buf.Bytes(), err
}

// content returns a path's bytes on one side (nil, false when absent).
func (r *Registry) content(s side, gitPath string) ([]byte, bool, error) {
	e, ok := s.files[gitPath]
	if !ok {
		return nil, false, nil
	}
	data, err := r.blob(e.hash)
	return data, true, err
}

// skillOf names the skill a registry-relative path belongs to: its
// SKILL.md or another file in its folder under a root, or its ledger.
func (r *Registry) skillOf(rel string) string {
	if rest, ok := strings.CutPrefix(rel, local.LedgerDir+"/"); ok {
		if name, ok := strings.CutSuffix(rest, ".jsonl"); ok && !strings.Contains(name, "/") {
			return name
		}
		return ""
	}
	for _, root := range r.opts.Roots {
		if rest, ok := strings.CutPrefix(rel, root+"/"); ok {
			if i := strings.IndexByte(rest, '/'); i > 0 {
				return rest[:i]
			}
		}
	}
	return ""
}

// isSkillFile reports whether rel is <root>/<name>/SKILL.md.
func (r *Registry) isSkillFile(rel string) bool {
	for _, root := range r.opts.Roots {
		if rest, ok := strings.CutPrefix(rel, root+"/"); ok {
			dir, file := path.Split(rest)
			if file == "SKILL.md" && dir != "" && !strings.Contains(strings.TrimSuffix(dir, "/"), "/") {
				return true
			}
		}
	}
	return false
}
