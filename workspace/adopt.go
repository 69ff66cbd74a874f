package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/megagit/megagit/audit"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/skillfile"
)

// Adoption is one skill megagit took over from an agent's native folder,
// as the list of the registry holding it records it (AdoptedFile).
type Adoption struct {
	Name  string `json:"name"`
	Agent string `json:"agent"`
	Scope string `json:"scope"` // KindProject or KindUser
	// From is the skill's folder as the agent reads it, slash-separated:
	// relative to the project's work tree (scope project) or to the home
	// folder (scope user), so a moved project restores into its new
	// place. Records of earlier releases hold an absolute path.
	From string `json:"from"`
	// Root is set when the native folder was one of the registry's roots:
	// the skill moved within the registry, from that root.
	Root string `json:"root,omitempty"`
	// Backup is where the original folder was moved aside (a native
	// folder outside the registry's roots), relative to the registry's
	// root (absolute in earlier releases).
	Backup string `json:"backup,omitempty"`
	// Path is the skill's SKILL.md in the registry after adopt (before a
	// restore), registry-relative.
	Path   string `json:"path"`
	Commit string `json:"commit,omitempty"`
	// Key is the native key (registry.NativeKey) of the SKILL.md adopted:
	// the evidence it brought was recorded under it.
	Key string `json:"key,omitempty"`
	// Modes are the modes git does not keep, of the files that were not
	// 0644 (a script's executable bit), by path in the skill's folder, in
	// octal: restore gives them back.
	Modes map[string]string `json:"modes,omitempty"`
	// State is the step in flight, journaled before it happens:
	// StateAdopting or StateRestoring; "" once done.
	State string `json:"state,omitempty"`
}

// The steps of an adoption in flight (Adoption.State): a kill leaves the
// record in one of them, and RecoverAdoptions finishes or undoes it.
const (
	StateAdopting  = "adopting"
	StateRestoring = "restoring"
)

// Adopted is an adoption as adopt and restore report it.
type Adopted struct {
	Adoption
	// Dir is the skill's folder as the agent reads it, absolute.
	Dir string `json:"dir"`
	// Registry is the root of the registry holding it (adopt) or that
	// held it (restore).
	Registry string `json:"registry"`
	// Kept is the original adopt moved aside, kept after a restore
	// because it holds something the restored folder has in its place
	// (returnBackup); "" when it is gone.
	Kept string `json:"kept,omitempty"`
}

// AdoptOptions choose the native folders: an agent ("" for all) and a
// scope: KindProject (the default in a project), KindUser (the default
// in the user registry) or "all".
type AdoptOptions struct {
	Agent, Scope string
	DryRun       bool
	Now          time.Time
	// Allow are the audit rules whose high findings do not keep a skill
	// where it is (`--allow`).
	Allow []string
}

// AdoptResult is what adopt or restore did (or, dry, would do).
type AdoptResult struct {
	Done []Adopted `json:"done"`
	// Skipped are skills left where they are, with why.
	Skipped []Skip `json:"skipped"`
	// Left counts the adopted skills restore was not asked for, by scope.
	Left map[string]int `json:"left,omitempty"`
}

// Skip is a skill adopt or restore left alone.
type Skip struct {
	Name   string `json:"name"`
	From   string `json:"from"`
	Reason string `json:"reason"`
}

// scopes says which scopes o asks for: project and user.
func (w *Workspace) scopes(o AdoptOptions) (project, user bool) {
	switch o.Scope {
	case "":
		return !w.IsUserRegistry(), w.IsUserRegistry()
	case KindProject:
		return true, false
	case KindUser:
		return false, true
	}
	return true, true
}

// Adopt moves the skills of the agents' native folders into a registry,
// so the agent no longer lists them itself and megagit injects the ones a
// prompt needs. The project's folders go into this registry: one that is
// one of the registry's roots has its skills moved to the first root (one
// commit each, history kept); the skills of the others are imported into
// the first root in one commit a folder, the originals moved aside into
// the local folder. The home folder's (personal skills, scope user) go the
// same way into the user registry, created on first use, which every
// project reads: a personal skill whose name this project has is left
// where it is. Every step is journaled first (AdoptedFile), so a kill
// leaves what RecoverAdoptions finishes or undoes. `Restore` undoes it.
func (w *Workspace) Adopt(o AdoptOptions) (AdoptResult, error) {
	res := AdoptResult{Done: []Adopted{}, Skipped: []Skip{}}
	project, user := w.scopes(o)
	if project && !w.IsUserRegistry() {
		if err := w.adoptInto(w, o, false, nil, &res); err != nil {
			return res, err
		}
	}
	if !user {
		return res, nil
	}
	dest := w
	if !w.IsUserRegistry() {
		var err error
		if o.DryRun {
			dest, err = w.Personal()
		} else {
			dest, err = w.CreateUserRegistry()
		}
		if err != nil {
			return res, err
		}
	}
	shadow, err := w.projectNames()
	if err != nil {
		return res, err
	}
	return res, w.adoptInto(dest, o, true, shadow, &res)
}

// projectNames are the skills this project defines (the registry's and
// its native folders'), by name, with their SKILL.md: a personal skill of
// one of these names is shadowed here. None in the user registry.
func (w *Workspace) projectNames() (map[string]string, error) {
	out := map[string]string{}
	if w.IsUserRegistry() {
		return out, nil
	}
	files, err := w.Reg.SkillFiles()
	if err != nil {
		return nil, err
	}
	for name, rel := range files {
		out[name] = w.abs(rel)
	}
	for _, nf := range nativeFolders {
		if nf.user {
			continue
		}
		dir := filepath.Join(w.Reg.WorkTree(), filepath.FromSlash(nf.rel))
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			file := filepath.Join(dir, e.Name(), "SKILL.md")
			if _, err := os.Stat(file); err == nil && out[e.Name()] == "" {
				out[e.Name()] = file
			}
		}
	}
	return out, nil
}

// adoptInto adopts the native folders of one scope (user: the home
// folder's, else w's project's) into dest's registry (nil: the user
// registry, not created yet, of a dry run).
func (w *Workspace) adoptInto(dest *Workspace, o AdoptOptions, user bool, shadow map[string]string, res *AdoptResult) error {
	var lock *local.Lock
	if dest != nil && !o.DryRun {
		var err error
		if lock, err = dest.lockAdopt(); err != nil {
			return err
		}
		defer lock.Release()
		if _, err := dest.recoverLocked(); err != nil {
			return err
		}
	}
	home, _ := os.UserHomeDir()
	base := w.Reg.WorkTree()
	scope := KindProject
	if user {
		if home == "" {
			return nil
		}
		base, scope = home, KindUser
	}
	roots := []string{"skills"}
	var rootOf map[string]string
	var firstAbs string
	if dest != nil {
		roots = dest.Reg.Options().Roots
		rootOf = map[string]string{}
		for _, r := range roots {
			rootOf[realPath(dest.abs(r))] = path.Clean(r)
		}
		firstAbs = realPath(dest.abs(roots[0]))
	}
	first := path.Clean(roots[0])
	seen := map[string]bool{}
	for _, nf := range nativeFolders {
		if nf.user != user || o.Agent != "" && o.Agent != nf.agent {
			continue
		}
		dir := filepath.Join(base, filepath.FromSlash(nf.rel))
		real := realPath(dir)
		if seen[real] {
			continue
		}
		seen[real] = true
		if real == firstAbs {
			return fmt.Errorf("%w: the registry's first root %q is %s's own skill folder; put another folder first in roots (field roots of %s) so adopted skills leave the agent's folder",
				local.ErrInvalid, first, nf.agent, ConfigFile(dest.Reg.Root()))
		}
		if root, ok := rootOf[real]; ok {
			if err := dest.adoptRoot(o, nf.agent, scope, root, base, res); err != nil {
				return err
			}
			continue
		}
		if err := dest.adoptFolder(o, w, nf.agent, scope, base, dir, first, shadow, res); err != nil {
			return err
		}
	}
	return nil
}

// adoptRoot moves the skills of a native folder that is one of the
// registry's roots to its first root, one commit each, each journaled.
func (w *Workspace) adoptRoot(o AdoptOptions, agent, scope, root, base string, res *AdoptResult) error {
	own, _, err := w.Reg.Skills()
	if err != nil {
		return err
	}
	first := path.Clean(w.Reg.Options().Roots[0])
	for _, s := range own {
		if path.Dir(path.Dir(s.Path)) != root {
			continue
		}
		if why := cannotCarry(w.abs(path.Dir(s.Path))); why != "" {
			res.Skipped = append(res.Skipped, Skip{s.Name, w.abs(path.Dir(s.Path)), why + ": left in place"})
			continue
		}
		a := Adoption{Name: s.Name, Agent: agent, Scope: scope, Root: root,
			From: path.Join(root, s.Name), Path: path.Join(first, s.Name, "SKILL.md")}
		if rel, err := filepath.Rel(base, w.abs(root)); err == nil && filepath.IsLocal(rel) {
			a.From = path.Join(filepath.ToSlash(rel), s.Name)
		}
		if !o.DryRun {
			pruneEmpty(w.abs(path.Join(first, s.Name)))
			a.State = StateAdopting
			if err := w.journal(a); err != nil {
				return err
			}
			_, hash, err := w.Reg.MoveSkillToRoot(s.Name, first, "adopted from "+agent+"'s skill folder "+root)
			if err != nil {
				return errors.Join(err, w.recoverOne(a))
			}
			a.State, a.Commit = "", hash.String()
			if err := w.journal(a); err != nil {
				return err
			}
		}
		res.Done = append(res.Done, w.report(a, base))
	}
	return nil
}

// adoptFolder imports the skills of a native folder outside the
// registry's roots: journaled, each original moved aside, then one
// commit of them all with the evidence each brings (as src reads it),
// then marked done.
func (w *Workspace) adoptFolder(o AdoptOptions, src *Workspace, agent, scope, base, dir, first string, shadow map[string]string, res *AdoptResult) error {
	plan, err := w.planFolder(o, agent, scope, base, dir, first, shadow, res)
	if err != nil || len(plan) == 0 {
		return err
	}
	if o.DryRun || w == nil {
		for _, a := range plan {
			res.Done = append(res.Done, w.report(a, base))
		}
		return nil
	}
	stamp := o.Now.UTC().Format("20060102T150405Z")
	batch := path.Join(local.LocalDirName, "adopted", agent+"-"+scope+"-"+stamp)
	sources := make([]registry.AdoptSource, len(plan))
	for i := range plan {
		plan[i].Backup = path.Join(batch, plan[i].Name)
		plan[i].State = StateAdopting
		entries, err := src.NativeLedger(plan[i].Key)
		if err != nil {
			return err
		}
		sources[i] = registry.AdoptSource{Dir: w.abs(plan[i].Backup), Ledger: entries}
	}
	if err := w.journal(plan...); err != nil {
		return err
	}
	if err := local.MkdirAll(w.abs(batch)); err != nil {
		return errors.Join(err, w.recoverOne(plan...))
	}
	for _, a := range plan {
		if err := os.Rename(filepath.Join(base, filepath.FromSlash(a.From)), w.abs(a.Backup)); err != nil {
			return errors.Join(fmt.Errorf("move %s aside: %w", filepath.Join(base, filepath.FromSlash(a.From)), err), w.recoverOne(plan...))
		}
	}
	_, _, hash, err := w.Reg.AdoptSkills(sources, "skills: adopt "+names(plan)+" from "+agent+"'s "+scope+" skill folder")
	if err != nil {
		return errors.Join(fmt.Errorf("adopting %s: %w", describe(dir), err), w.recoverOne(plan...))
	}
	for i := range plan {
		plan[i].State, plan[i].Commit = "", hash.String()
		res.Done = append(res.Done, w.report(plan[i], base))
	}
	return w.journal(plan...)
}

// planFolder lists the skills of a native folder adopt takes, and those
// it leaves (in res.Skipped): a symlink, a folder holding what a commit
// cannot carry (a .git: cannotCarry), a name the registry (w; nil: none
// yet) or, for a personal skill, the project has, a SKILL.md that does
// not pass lint, a folder the audit finds high that o.Allow does not allow.
func (w *Workspace) planFolder(o AdoptOptions, agent, scope, base, dir, first string, shadow map[string]string, res *AdoptResult) ([]Adoption, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var plan []Adoption
	for _, e := range entries {
		from := filepath.Join(dir, e.Name())
		skip := func(why string) { res.Skipped = append(res.Skipped, Skip{e.Name(), from, why}) }
		if e.Type()&fs.ModeSymlink != 0 {
			skip("a symlink (linked in from elsewhere): left in place")
			continue
		}
		if !e.IsDir() {
			continue
		}
		file := filepath.Join(from, "SKILL.md")
		data, err := local.ReadRegular(file, skillfile.MaxSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			skip(err.Error() + ": left in place")
			continue
		}
		if why := cannotCarry(from); why != "" {
			skip(why + ": left in place")
			continue
		}
		if by := shadow[e.Name()]; by != "" {
			skip("shadowed by the project's skill " + describe(by) + ", which megagit routes here: left in place (adopt it from another project, or rename one of the two)")
			continue
		}
		// Two agents' folders holding one name: the first folder's goes in,
		// the other's stays. Said from what this run took, so a dry run,
		// which commits nothing, says what a real adopt will.
		if prev := w.takenBefore(res, e.Name()); prev != "" {
			skip("a skill of that name is adopted from " + describe(prev) + " first: left in place (rename one of the two to keep both)")
			continue
		}
		if w != nil {
			if _, err := w.Reg.Skill(e.Name()); err == nil || !errors.Is(err, registry.ErrNotFound) {
				skip("the registry " + describe(w.Reg.Root()) + " has a skill of that name: left in place")
				continue
			}
			if _, err := os.Stat(w.abs(registry.LedgerPath(e.Name()))); err == nil {
				skip("the registry " + describe(w.Reg.Root()) + " has a ledger of that name (" + registry.LedgerPath(e.Name()) + ") without its skill: left in place")
				continue
			}
		}
		if msg := lintError(e.Name(), file, data); msg != "" {
			skip(msg + ": left in place")
			continue
		}
		if b := audit.Blocking(audit.Skill(from), o.Allow); len(b) > 0 {
			skip(auditRefusal(from, b) + ": left in place (`--allow " + b[0].Rule + "` adopts it all the same)")
			continue
		}
		modes, err := fileModes(from)
		if err != nil {
			skip(err.Error() + ": left in place")
			continue
		}
		rel, err := filepath.Rel(base, from)
		if err != nil {
			return nil, err
		}
		plan = append(plan, Adoption{Name: e.Name(), Agent: agent, Scope: scope, From: filepath.ToSlash(rel),
			Path: path.Join(first, e.Name(), "SKILL.md"), Key: registry.NativeKey(e.Name(), data), Modes: modes})
	}
	return plan, nil
}

// takenBefore is the folder a skill named name was adopted from into w's
// registry (nil: the user registry a dry run has not made) earlier in this
// run, or "".
func (w *Workspace) takenBefore(res *AdoptResult, name string) string {
	reg := w.report(Adoption{}, "").Registry
	for _, d := range res.Done {
		if d.Name == name && d.Registry == reg {
			return d.Dir
		}
	}
	return ""
}

// lintError is the first error lint finds in a SKILL.md, "" for none.
func lintError(name, file string, data []byte) string {
	for _, p := range skillfile.Lint(name, file, data) {
		if p.Severity == skillfile.SeverityError {
			return fmt.Sprintf("%s:%d: field %s: %s", describe(file), p.Line, p.Field, p.Message)
		}
	}
	return ""
}

// auditRefusal says why the audit keeps a skill folder out: its first
// high finding, and how many more.
func auditRefusal(dir string, high []audit.Finding) string {
	f := high[0]
	msg := fmt.Sprintf("audit: %s:%d: %s (high): %s", describe(filepath.Join(dir, filepath.FromSlash(f.File))), f.Line, f.Rule, f.Message)
	if n := len(high) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more high finding(s))", n)
	}
	return msg
}

// fileModes are the modes of a skill folder's files that are not 0644, by
// slash path in it, in octal; a file that is not regular is refused (the
// registry cannot hold it).
func fileModes(dir string) (map[string]string, error) {
	var out map[string]string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (a symlink?)", describe(p))
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if perm := info.Mode().Perm(); perm != 0o644 {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			if out == nil {
				out = map[string]string{}
			}
			out[filepath.ToSlash(rel)] = "0" + strconv.FormatUint(uint64(perm), 8)
		}
		return nil
	})
	return out, err
}

// names lists the adoptions' skills for a commit subject.
func names(plan []Adoption) string {
	s := ""
	for i, a := range plan {
		if i > 0 {
			s += ", "
		}
		s += a.Name
	}
	return s
}

// report is an adoption as the result shows it.
func (w *Workspace) report(a Adoption, base string) Adopted {
	out := Adopted{Adoption: a, Dir: filepath.Join(base, filepath.FromSlash(a.From))}
	if filepath.IsAbs(a.From) {
		out.Dir = a.From
	}
	if w != nil {
		out.Registry = w.Reg.Root()
	} else {
		out.Registry = "(the user registry, created by adopt)"
	}
	return out
}
