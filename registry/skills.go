package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/skillfile"
)

// Skill is one parsed SKILL.md with its evidence.
type Skill struct {
	Name     string
	Path     string // registry-relative path of SKILL.md, slash form
	File     *skillfile.File
	Evidence lifecycle.Evidence
	// NoImplicit is Codex's agents/openai.yaml beside the SKILL.md saying
	// `policy: {allow_implicit_invocation: false}`; PolicyErr is set when
	// that file exists but cannot be read (the skill is then kept from the
	// model as well: its author may have meant it).
	NoImplicit bool
	PolicyErr  error
}

// candidatePaths lists every <root>/<dir>/SKILL.md, registry-relative.
func (r *Registry) candidatePaths() ([]string, error) {
	var out []string
	for _, root := range r.opts.Roots {
		dir := r.abs(root)
		ents, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read skill root %s: %w", root, err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := path.Join(root, e.Name(), "SKILL.md")
			if _, err := os.Lstat(r.abs(p)); err == nil {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// readInside reads a registry file, refusing symlinks that lead outside the
// registry, FIFOs and devices, and files over the size cap, so a hostile
// clone cannot make megagit read or commit something else.
func (r *Registry) readInside(rel string) ([]byte, error) {
	return r.readCapped(rel, skillfile.MaxSize)
}

// readCapped is readInside with its own cap (a ledger's is larger).
func (r *Registry) readCapped(rel string, max int64) ([]byte, error) {
	if !r.anyLink {
		return local.ReadInside(r.root, rel, max)
	}
	f, _, err := local.OpenRegular(r.abs(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return local.ReadCapped(f, rel, max)
}

// loadSkill parses one SKILL.md path.
func (r *Registry) loadSkill(rel string) (*Skill, error) {
	name := path.Base(path.Dir(rel))
	if err := skillfile.ValidateName(name); err != nil {
		return nil, fmt.Errorf("%w: %s: folder name: %v", errkind.ErrInvalid, rel, err)
	}
	data, err := r.readInside(rel)
	if err != nil {
		return nil, err
	}
	f, err := skillfile.Parse(rel, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errkind.ErrInvalid, err)
	}
	ev, err := f.Evidence()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errkind.ErrInvalid, err)
	}
	s := &Skill{Name: name, Path: rel, File: f, Evidence: ev}
	s.NoImplicit, s.PolicyErr = r.openAIPolicy(path.Join(path.Dir(rel), skillfile.OpenAIPolicyFile))
	return s, nil
}

// openAIPolicy reads Codex's agents/openai.yaml of a skill (rel), when
// there is one: whether it forbids implicit invocation, or why it could
// not be read.
func (r *Registry) openAIPolicy(rel string) (noImplicit bool, err error) {
	data, err := r.readInside(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("%w: %s: %w", errkind.ErrInvalid, rel, err)
	}
	implicit, err := skillfile.ParseOpenAIPolicy(rel, data)
	if err != nil {
		return true, err
	}
	return !implicit, nil
}

// Skills loads every skill, sorted by name. A malformed skill is skipped and
// reported in problems; it never stops the others from loading. When two
// roots hold the same name, the first root wins.
func (r *Registry) Skills() (skills []*Skill, problems []error, err error) {
	paths, err := r.candidatePaths()
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]string{}
	for _, p := range paths {
		name := path.Base(path.Dir(p))
		if first, ok := seen[name]; ok {
			problems = append(problems, fmt.Errorf("%s: skipped: skill %q is already defined by %s", p, name, first))
			continue
		}
		s, err := r.loadSkill(p)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		seen[name] = p
		if s.PolicyErr != nil {
			problems = append(problems, fmt.Errorf("%w (the skill is not routed)", s.PolicyErr))
		}
		skills = append(skills, s)
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, problems, nil
}

// SkillNames lists the skills' names, sorted, from the folders alone
// (nothing is parsed): cheap enough for a shell's tab completion.
func (r *Registry) SkillNames() ([]string, error) {
	paths, err := r.candidatePaths()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for _, p := range paths {
		name := path.Base(path.Dir(p))
		if !seen[name] && skillfile.ValidateName(name) == nil {
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// SkillFiles names every skill folder under the roots without parsing
// any: name → registry-relative SKILL.md path (the first root's, as
// Skills takes it).
func (r *Registry) SkillFiles() (map[string]string, error) {
	paths, err := r.candidatePaths()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		name := path.Base(path.Dir(p))
		if _, ok := out[name]; !ok {
			out[name] = p
		}
	}
	return out, nil
}

// HasSkill reports whether one of the roots holds a folder name with a
// SKILL.md (what Skill would load), without reading it.
func (r *Registry) HasSkill(name string) bool {
	if skillfile.ValidateName(name) != nil {
		return false
	}
	for _, root := range r.opts.Roots {
		if _, err := os.Lstat(r.abs(path.Join(root, name, "SKILL.md"))); err == nil {
			return true
		}
	}
	return false
}

// Skill loads one skill by name.
func (r *Registry) Skill(name string) (*Skill, error) {
	if err := skillfile.ValidateName(name); err != nil {
		return nil, err // names the skill and says what is wrong (exit 5)
	}
	for _, root := range r.opts.Roots {
		p := path.Join(root, name, "SKILL.md")
		if _, err := os.Lstat(r.abs(p)); err == nil {
			return r.loadSkill(p)
		}
	}
	return nil, fmt.Errorf("%w: skill %q (looked in %s)", ErrNotFound, name, strings.Join(r.opts.Roots, ", "))
}

// LoadDir reads skills from a plain folder (DIR/<name>/SKILL.md) that need not
// be a registry or a git repository: what `megagit eval` benchmarks.
func LoadDir(dir string) (skills []*Skill, problems []error, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	// Resolve the folder itself so symlinks inside are judged against where
	// it really is.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &Registry{root: abs, opts: Options{Roots: []string{"."}, Warn: func(string) {}}}
	return r.Skills()
}

// LoadOwnDir is LoadDir for a folder of the user's own (~/.claude/skills):
// a symlink in it may lead anywhere, as the agents allow (skills linked in
// from a clone elsewhere), since no one else's commit put it there.
func LoadOwnDir(dir string) (skills []*Skill, problems []error, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	r := &Registry{root: abs, anyLink: true, opts: Options{Roots: []string{"."}, Warn: func(string) {}}}
	return r.Skills()
}

// readLedger reads a ledger file under the registry's symlink policy and
// the ledger size cap.
func (r *Registry) readLedger(rel string) ([]byte, error) {
	return r.readCapped(rel, local.MaxLedger)
}
