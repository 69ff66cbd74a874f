package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
)

// AdoptedFile, in the registry's local folder (never committed: it names
// folders of this machine), lists the skills adopt took from the agents'
// native folders, so `adopt --restore` can put each back.
const AdoptedFile = "adopted.json"

// Adoption is one skill megagit took over from an agent's native folder.
type Adoption struct {
	Name  string `json:"name"`
	Agent string `json:"agent"`
	Scope string `json:"scope"` // KindProject or KindUser
	// From is the skill's folder as the agent read it, absolute.
	From string `json:"from"`
	// Root is set when the native folder was one of the registry's roots:
	// the skill moved within the registry, from that root.
	Root string `json:"root,omitempty"`
	// Backup is where the original folder was moved aside (a native
	// folder outside the registry), absolute.
	Backup string `json:"backup,omitempty"`
	// Path is the skill's SKILL.md in the registry after adopt (before a
	// restore), registry-relative.
	Path   string `json:"path"`
	Commit string `json:"commit,omitempty"`
}

// AdoptOptions choose the native folders: an agent ("" for all) and a
// scope ("" for both).
type AdoptOptions struct {
	Agent, Scope string
	DryRun       bool
	Now          time.Time
}

// AdoptResult is what adopt or restore did (or, dry, would do).
type AdoptResult struct {
	Done []Adoption `json:"done"`
	// Skipped are skills left where they are, with why.
	Skipped []Skip `json:"skipped"`
}

// Skip is a skill adopt or restore left alone.
type Skip struct {
	Name   string `json:"name"`
	From   string `json:"from"`
	Reason string `json:"reason"`
}

func (o AdoptOptions) wants(agent string, user bool) bool {
	scope := KindProject
	if user {
		scope = KindUser
	}
	return (o.Agent == "" || o.Agent == agent) && (o.Scope == "" || o.Scope == scope)
}

// Adopt moves the skills of the agents' native folders into the registry,
// so the agent no longer lists them itself and megagit injects the ones a
// prompt needs: a native folder that is one of the registry's roots has
// its skills moved to the first root (one commit each, history kept); the
// skills of one outside the registry are imported into the first root in
// one commit, and the original folders are moved aside into the local
// folder. `Restore` undoes it.
func (w *Workspace) Adopt(o AdoptOptions) (AdoptResult, error) {
	res := AdoptResult{Done: []Adoption{}, Skipped: []Skip{}}
	first := path.Clean(w.Reg.Options().Roots[0])
	home, _ := os.UserHomeDir()
	firstAbs := realPath(filepath.Join(w.Reg.Root(), filepath.FromSlash(first)))
	rootOf := map[string]string{}
	for _, r := range w.Reg.Options().Roots {
		rootOf[realPath(filepath.Join(w.Reg.Root(), filepath.FromSlash(r)))] = path.Clean(r)
	}
	own, _, err := w.Reg.Skills()
	if err != nil {
		return res, err
	}
	seen := map[string]bool{}
	for _, nf := range nativeFolders {
		if !o.wants(nf.agent, nf.user) {
			continue
		}
		dir := filepath.Join(w.Reg.WorkTree(), filepath.FromSlash(nf.rel))
		scope := KindProject
		if nf.user {
			if home == "" {
				continue
			}
			dir, scope = filepath.Join(home, filepath.FromSlash(nf.rel)), KindUser
		}
		real := realPath(dir)
		if seen[real] {
			continue
		}
		seen[real] = true
		if real == firstAbs {
			return res, fmt.Errorf("%w: the registry's first root %q is %s's own skill folder; put another folder first in roots (field roots of %s) so adopted skills leave the agent's folder",
				local.ErrInvalid, first, nf.agent, local.ConfigPath)
		}
		if root, ok := rootOf[real]; ok {
			for _, s := range own {
				if path.Dir(path.Dir(s.Path)) != root {
					continue
				}
				a := Adoption{Name: s.Name, Agent: nf.agent, Scope: scope, Root: root,
					From: filepath.Join(dir, s.Name), Path: path.Join(first, s.Name, "SKILL.md")}
				if !o.DryRun {
					_, hash, err := w.Reg.MoveSkillToRoot(s.Name, first, "adopted from "+nf.agent+"'s skill folder "+root)
					if err != nil {
						return res, err
					}
					a.Commit = hash.String()
					if err := w.recordAdoption(a); err != nil {
						return res, err
					}
				}
				res.Done = append(res.Done, a)
			}
			continue
		}
		done, skipped, err := w.adoptFolder(o, nf.agent, scope, dir)
		res.Done = append(res.Done, done...)
		res.Skipped = append(res.Skipped, skipped...)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// adoptFolder imports the skills of a native folder outside the registry
// and moves the originals aside.
func (w *Workspace) adoptFolder(o AdoptOptions, agent, scope, dir string) ([]Adoption, []Skip, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var done []Adoption
	var skipped []Skip
	var dirs []string
	first := path.Clean(w.Reg.Options().Roots[0])
	for _, e := range entries {
		from := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			skipped = append(skipped, Skip{e.Name(), from, "a symlink (linked in from elsewhere): left in place"})
			continue
		}
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(from, "SKILL.md")); err != nil {
			continue
		}
		if _, err := w.Reg.Skill(e.Name()); err == nil || !errors.Is(err, registry.ErrNotFound) {
			skipped = append(skipped, Skip{e.Name(), from, "the registry has a skill of that name: left in place"})
			continue
		}
		dirs = append(dirs, from)
		done = append(done, Adoption{Name: e.Name(), Agent: agent, Scope: scope, From: from,
			Path: path.Join(first, e.Name(), "SKILL.md")})
	}
	if len(dirs) == 0 || o.DryRun {
		return done, skipped, nil
	}
	_, _, hash, err := w.Reg.ImportSkills(dirs)
	if err != nil {
		return nil, skipped, fmt.Errorf("adopting %s: %w", dir, err)
	}
	stamp := o.Now.UTC().Format("20060102T150405Z")
	aside := filepath.Join(w.Reg.Root(), filepath.FromSlash(local.LocalDirName), "adopted", agent+"-"+scope+"-"+stamp)
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return nil, skipped, err
	}
	for i := range done {
		done[i].Commit = hash.String()
		done[i].Backup = filepath.Join(aside, done[i].Name)
		if err := os.Rename(done[i].From, done[i].Backup); err != nil {
			return nil, skipped, fmt.Errorf("%s is adopted (commit %s) but its original could not be moved aside: %w; delete %s by hand, or run `megagit adopt --restore`",
				done[i].Name, hash.String()[:12], err, done[i].From)
		}
		if err := w.recordAdoption(done[i]); err != nil {
			return nil, skipped, err
		}
	}
	return done, skipped, nil
}

// Restore puts adopted skills back where their agent reads them: a skill
// moved within the registry moves back to its root; an imported one is
// written back to its native folder from the registry's current files
// (with the executable bits of the original) and removed from the
// registry (its ledger too: git history keeps both). One commit a skill.
func (w *Workspace) Restore(o AdoptOptions) (AdoptResult, error) {
	res := AdoptResult{Done: []Adoption{}, Skipped: []Skip{}}
	all, err := w.Adopted()
	if err != nil {
		return res, err
	}
	var keep []Adoption
	for i := len(all) - 1; i >= 0; i-- {
		a := all[i]
		if (o.Agent != "" && a.Agent != o.Agent) || (o.Scope != "" && a.Scope != o.Scope) {
			keep = append(keep, a)
			continue
		}
		if err := w.restoreOne(o, a); err != nil {
			var skip skipError
			if errors.As(err, &skip) {
				res.Skipped = append(res.Skipped, Skip{a.Name, a.From, string(skip)})
				keep = append(keep, a)
				continue
			}
			return res, err
		}
		res.Done = append(res.Done, a)
	}
	if o.DryRun {
		return res, nil
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return res, w.writeAdopted(keep)
}

// skipError is a skill restore leaves alone, with why.
type skipError string

func (e skipError) Error() string { return string(e) }

func (w *Workspace) restoreOne(o AdoptOptions, a Adoption) error {
	s, err := w.Reg.Skill(a.Name)
	if errors.Is(err, registry.ErrNotFound) {
		return skipError("no longer in the registry (removed or renamed since): nothing to put back")
	}
	if err != nil {
		return err
	}
	if a.Root != "" {
		if o.DryRun {
			return nil
		}
		_, _, err := w.Reg.MoveSkillToRoot(a.Name, a.Root, "restored to "+a.Agent+"'s skill folder "+a.Root)
		return err
	}
	if _, err := os.Lstat(a.From); err == nil {
		return skipError(a.From + " exists again: move it away first")
	}
	if o.DryRun {
		return nil
	}
	src := filepath.Join(w.Reg.Root(), filepath.FromSlash(path.Dir(s.Path)))
	tmp := a.From + ".megagit-restore"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	err = filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(tmp, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !e.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if a.Backup != "" {
			if st, err := os.Stat(filepath.Join(a.Backup, rel)); err == nil && st.Mode()&0o111 != 0 {
				mode = 0o755
			}
		}
		return os.WriteFile(to, data, mode)
	})
	if err == nil {
		err = os.Rename(tmp, a.From)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("restoring %s to %s: %w", a.Name, a.From, err)
	}
	if _, _, err := w.Reg.RemoveSkill(a.Name); err != nil {
		return fmt.Errorf("%s is back in %s, but removing it from the registry failed: %w; run `megagit skill rm %s`", a.Name, a.From, err, a.Name)
	}
	if a.Backup != "" {
		os.RemoveAll(a.Backup)
		os.Remove(filepath.Dir(a.Backup)) // the batch folder, once empty
	}
	return nil
}

// Adopted lists the skills adopt took over on this machine, oldest first.
func (w *Workspace) Adopted() ([]Adoption, error) {
	p := w.adoptedPath()
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Adoption
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (it lists what `megagit adopt --restore` puts back)", local.ErrInvalid, p, err)
	}
	return out, nil
}

func (w *Workspace) adoptedPath() string {
	return filepath.Join(w.Reg.Root(), filepath.FromSlash(local.LocalDirName), AdoptedFile)
}

func (w *Workspace) recordAdoption(a Adoption) error {
	all, err := w.Adopted()
	if err != nil {
		return err
	}
	return w.writeAdopted(append(all, a))
}

func (w *Workspace) writeAdopted(all []Adoption) error {
	if all == nil {
		all = []Adoption{}
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	p := w.adoptedPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return local.WriteFileAtomic(p, append(data, '\n'), 0o644)
}
