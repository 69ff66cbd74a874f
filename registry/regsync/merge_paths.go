package regsync

import (
	"fmt"
	"path"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry/gitstore"
)

// blob reads a blob's bytes.
func (r reg) blob(h gitstore.Hash) ([]byte, error) {
	data, err := r.Store().Blob(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return data, nil
}

// content returns a path's bytes on one side (nil, false when absent).
func (r reg) content(s side, gitPath string) ([]byte, bool, error) {
	e, ok := s.files[gitPath]
	if !ok {
		return nil, false, nil
	}
	data, err := r.blob(e.hash)
	return data, true, err
}

// skillOf names the skill a registry-relative path belongs to: its
// SKILL.md or another file in its folder under a root, or its ledger.
func (r reg) skillOf(rel string) string {
	if rest, ok := strings.CutPrefix(rel, local.LedgerDir+"/"); ok {
		if name, ok := strings.CutSuffix(rest, ".jsonl"); ok && !strings.Contains(name, "/") {
			return name
		}
		return ""
	}
	for _, root := range r.Options().Roots {
		if rest, ok := strings.CutPrefix(rel, root+"/"); ok {
			if i := strings.IndexByte(rest, '/'); i > 0 {
				return rest[:i]
			}
		}
	}
	return ""
}

// isSkillFile reports whether rel is <root>/<name>/SKILL.md.
func (r reg) isSkillFile(rel string) bool {
	for _, root := range r.Options().Roots {
		if rest, ok := strings.CutPrefix(rel, root+"/"); ok {
			dir, file := path.Split(rest)
			if file == "SKILL.md" && dir != "" && !strings.Contains(strings.TrimSuffix(dir, "/"), "/") {
				return true
			}
		}
	}
	return false
}
