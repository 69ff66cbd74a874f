package route

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/megagit/megagit/ranker"
)

// Where is where a prompt is asked, for the skills limited by paths
// (Claude Code's paths: globs): the working directory and the files the
// prompt names (or the caller adds), relative to the project's top, in
// slash form.
type Where struct {
	// Dir is the working directory ("." at the top; "" when it is
	// outside the project or unknown).
	Dir   string   `json:"dir,omitempty"`
	Files []string `json:"files,omitempty"`
}

// Out marks, in doc order, the skills whose paths keep them out for a
// prompt asked at w (nil when no skill has paths). A nil w keeps every
// skill with paths out: nothing says the work is on their files.
func Out(docs []ranker.Doc, w *Where) []bool {
	var out []bool
	for i, d := range docs {
		if len(d.Paths) == 0 || w != nil && w.Matches(d.Paths) {
			continue
		}
		if out == nil {
			out = make([]bool, len(docs))
		}
		out[i] = true
	}
	return out
}

// Matches says whether globs admit the work at w, with gitignore's
// reading of a glob, as Claude Code matches paths: a glob without a
// slash matches a name at any depth ("*.ts"), one with a slash from the
// top ("src/*.ts", a leading "/" anchors only), and a folder's glob covers
// what is inside it. A file matches when a glob does; the working
// directory matches when a glob matches it or a folder above it, or when
// it is inside the fixed folder a glob starts with ("src/api" of
// "src/api/**/*.ts"): the work is where the skill's files are. A glob
// that starts with a wildcard says nothing of folders, so only a file
// the prompt names can match it.
func (w *Where) Matches(globs []string) bool {
	for _, g := range globs {
		pat := gitignorePattern(g)
		for _, f := range w.Files {
			if under(pat, f) {
				return true
			}
		}
		if w.Dir == "" || w.Dir == "." {
			continue
		}
		if under(pat, w.Dir) {
			return true
		}
		if base, _ := doublestar.SplitPattern(strings.TrimPrefix(g, "/")); base != "." && base != "" && !strings.HasPrefix(base, "**") {
			if w.Dir == base || strings.HasPrefix(w.Dir, base+"/") {
				return true
			}
		}
	}
	return false
}

// gitignorePattern is a glob as gitignore reads it, for doublestar: a
// leading "/" anchors (dropped), a glob with no other slash matches at
// any depth ("**/" before it).
func gitignorePattern(g string) string {
	if anchored, ok := strings.CutPrefix(g, "/"); ok {
		return anchored
	}
	if !strings.Contains(strings.TrimSuffix(g, "/"), "/") {
		return "**/" + strings.TrimSuffix(g, "/")
	}
	return strings.TrimSuffix(g, "/")
}

// under says whether pat matches p or a folder above it.
func under(pat, p string) bool {
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if ok, _ := doublestar.Match(pat, q); ok {
			return true
		}
	}
	return false
}

// CheckGlobs says which of a skill's paths globs is not a glob (an
// unclosed "[" or "{"), naming it.
func CheckGlobs(globs []string) error {
	var bad []string
	for _, g := range globs {
		if !doublestar.ValidatePattern(gitignorePattern(g)) {
			bad = append(bad, fmt.Sprintf("%q", g))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("not a glob: %s", strings.Join(bad, ", "))
	}
	return nil
}

// WhereAt is where a prompt asked in the folder cwd is (absolute; "" the
// process's): its folder and the files it names (PromptFiles) and files
// (relative to cwd or absolute), relative to the project's top, the
// nearest folder above cwd holding .git (else cwd itself). A file
// outside the project is left out.
func WhereAt(cwd, prompt string, files []string) *Where {
	if cwd == "" || !filepath.IsAbs(cwd) {
		wd, err := os.Getwd()
		if err != nil {
			return &Where{}
		}
		cwd = filepath.Join(wd, cwd)
	}
	cwd = filepath.Clean(cwd)
	top := projectTop(cwd)
	w := &Where{}
	if rel, ok := inside(top, cwd); ok {
		w.Dir = rel
	}
	seen := map[string]bool{}
	for _, f := range append(PromptFiles(prompt), files...) {
		if !filepath.IsAbs(f) {
			f = filepath.Join(cwd, filepath.FromSlash(f))
		}
		if rel, ok := inside(top, filepath.Clean(f)); ok && rel != "." && !seen[rel] {
			seen[rel] = true
			w.Files = append(w.Files, rel)
		}
	}
	return w
}

// projectTop is the nearest folder at or above dir that holds .git, else dir.
func projectTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		} else if !errors.Is(err, os.ErrNotExist) {
			return dir
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// inside is p relative to top in slash form, when p is at or below top.
func inside(top, p string) (string, bool) {
	rel, err := filepath.Rel(top, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// PromptFiles are the words of a prompt that look like file paths: with
// a slash ("src/api/users.ts", "./cmd/"), or a name with an extension
// ("README.md"), stripped of the quotes and punctuation around them. A
// URL is not a file.
func PromptFiles(prompt string) []string {
	var out []string
	for _, w := range strings.Fields(prompt) {
		w = strings.Trim(w, "\"'`()[]{}<>,;:!?")
		w = strings.TrimRight(w, ".")
		if w == "" || strings.Contains(w, "://") || strings.HasPrefix(w, "@") && len(w) == 1 {
			continue
		}
		w = strings.TrimPrefix(w, "@") // Claude Code's @file mentions
		if strings.Contains(w, "/") || looksLikeFileName(w) {
			out = append(out, w)
		}
	}
	return out
}

// looksLikeFileName says whether w is a name with a short extension of
// letters and digits ("users.ts", "Makefile.am"), not a number ("1.5")
// nor a sentence's end.
func looksLikeFileName(w string) bool {
	i := strings.LastIndexByte(w, '.')
	if i <= 0 || i == len(w)-1 || len(w)-i-1 > 8 {
		return false
	}
	letter := false
	for _, r := range w[i+1:] {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	for _, r := range w[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return letter
}
