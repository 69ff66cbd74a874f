package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

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
			policy := path.Join(root, ent.Name(), skillfile.OpenAIPolicyFile)
			if _, err := r.openAIPolicy(policy); err != nil {
				field := "file"
				if strings.Contains(err.Error(), "field policy") {
					field = "policy.allow_implicit_invocation"
				}
				problems = append(problems, skillfile.Problem{File: policy, Field: field, Severity: "error",
					Message: err.Error() + " (the skill is not routed)"})
			}
		}
	}
	return problems, len(seen)
}

// LintDir is Lint of a plain folder of skills (DIR/<name>/SKILL.md) that
// is no registry: an agent's native folder or a plugin's. own says it is
// the user's own folder, where a symlink may lead anywhere (LoadOwnDir).
// The files are named by their absolute paths.
func LintDir(dir string, own bool) (problems []skillfile.Problem, checked int) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return []skillfile.Problem{{File: dir, Field: "file", Message: err.Error(), Severity: "error"}}, 0
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && !own {
		abs = real
	}
	r := &Registry{root: abs, anyLink: own, opts: Options{Roots: []string{"."}, Warn: func(string) {}}}
	problems, checked = r.Lint([]string{"."})
	for i := range problems {
		if !filepath.IsAbs(problems[i].File) {
			problems[i].File = filepath.Join(dir, filepath.FromSlash(problems[i].File))
		}
	}
	return problems, checked
}
