package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/megagit/megagit/skillfile"
)

// Lint reads every skill folder under roots (registry-relative, slash
// form), even those Skills refuses, and reports every problem: a file that
// cannot be read, a name defined twice, and what skillfile.Lint finds.
// checked is how many skills it read.
func (r *Registry) Lint(roots []string) (problems []skillfile.Problem, checked int) {
	problems = []skillfile.Problem{}
	seen := map[string]string{}
	for _, root := range roots {
		dir := filepath.Join(r.root, filepath.FromSlash(root))
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, ent := range ents {
			if !ent.IsDir() && ent.Type()&os.ModeSymlink == 0 {
				continue
			}
			rel := path.Join(root, ent.Name(), "SKILL.md")
			data, err := r.readInside(rel)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				problems = append(problems, skillfile.Problem{File: rel, Field: "file", Message: err.Error(), Severity: "error"})
				continue
			}
			if first, ok := seen[ent.Name()]; ok {
				problems = append(problems, skillfile.Problem{File: rel, Field: "name", Severity: "error",
					Message: fmt.Sprintf("skill %q is already defined by %s; this copy is ignored", ent.Name(), first)})
			}
			seen[ent.Name()] = rel
			problems = append(problems, skillfile.Lint(ent.Name(), rel, data)...)
		}
	}
	return problems, len(seen)
}
