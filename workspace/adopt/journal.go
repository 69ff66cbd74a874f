package adopt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/workspace"
)

// AdoptedFile, in a registry's local folder (never committed: it names
// folders of this machine), lists the skills adopt took from the agents'
// native folders into that registry, so `adopt --restore` can put each
// back. It is adopt's journal too: each step is written there before it
// happens (Adoption.State).
const AdoptedFile = "adopted.json"

// adoptLockFile serialises adopt, restore and their recovery on one
// registry (the registry's own lock is taken by each commit inside).
const adoptLockFile = "adopt.lock"

// restoreSuffix names the folder a restore writes before renaming it into
// the agent's folder.
const restoreSuffix = ".megagit-restore"

func (w *space) lockAdopt() (*local.Lock, error) {
	if err := local.MkdirAll(w.Reg.LocalDir()); err != nil {
		return nil, err
	}
	return w.Reg.Local().AcquireFile(adoptLockFile, w.Reg.Options().LockTimeout)
}

// Adopted lists the skills adopt took into this registry on this machine,
// oldest first.
func (w *space) Adopted() ([]Adoption, error) {
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
		return nil, fmt.Errorf("%w: %s: %v (it lists what `megagit adopt --restore` puts back)", errkind.ErrInvalid, p, err)
	}
	for i, a := range out {
		if a.Name == "" || strings.ContainsAny(a.Name, `/\`) || a.Name == "." || a.Name == ".." {
			return nil, fmt.Errorf("%w: %s: entry %d: field name: %q is not a skill name", errkind.ErrInvalid, p, i+1, a.Name)
		}
		if a.Scope != workspace.KindProject && a.Scope != workspace.KindUser {
			return nil, fmt.Errorf("%w: %s: skill %q: field scope: %q, want project or user", errkind.ErrInvalid, p, a.Name, a.Scope)
		}
		if a.State != "" && a.State != StateAdopting && a.State != StateRestoring {
			return nil, fmt.Errorf("%w: %s: skill %q: field state: %q, want %s, %s or none", errkind.ErrInvalid, p, a.Name, a.State, StateAdopting, StateRestoring)
		}
	}
	return out, nil
}

func (w *space) adoptedPath() string {
	return filepath.Join(w.Reg.LocalDir(), AdoptedFile)
}

// journal writes each record into the list, in place of the record of
// its name, else at the end: atomic, durable, before the step it names.
func (w *space) journal(recs ...Adoption) error {
	all, err := w.Adopted()
	if err != nil {
		return err
	}
	for _, a := range recs {
		i := indexOf(all, a.Name)
		if i < 0 {
			all = append(all, a)
		} else {
			all[i] = a
		}
	}
	return w.writeAdopted(all)
}

// drop removes the records of names from the list.
func (w *space) drop(names ...string) error {
	all, err := w.Adopted()
	if err != nil {
		return err
	}
	keep := all[:0]
	for _, a := range all {
		if !contains(names, a.Name) {
			keep = append(keep, a)
		}
	}
	return w.writeAdopted(keep)
}

func indexOf(all []Adoption, name string) int {
	for i, a := range all {
		if a.Name == name {
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (w *space) writeAdopted(all []Adoption) error {
	if all == nil {
		all = []Adoption{}
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	p := w.adoptedPath()
	if err := local.MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	return local.WriteFileAtomic(p, append(data, '\n'), 0o600)
}

// base is the folder an adoption's From is relative to: the project's
// work tree, or the home folder for a personal skill.
func (w *space) base(a Adoption) (string, error) {
	if a.Scope == workspace.KindUser {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", fmt.Errorf("%w: no home folder to restore %s into", errkind.ErrInvalid, a.Name)
		}
		return home, nil
	}
	return w.Reg.WorkTree(), nil
}

// destOf is where an adopted skill goes back, absolute: its From, which
// must name the skill's folder in one of the agents' folders of its scope
// inside the project (or the home folder). A record naming anything else
// (the project moved since an earlier release wrote an absolute path, or
// the file was edited) is an error naming the file, the field and the path.
func (w *space) destOf(a Adoption) (string, error) {
	base, err := w.base(a)
	if err != nil {
		return "", err
	}
	where := "this project (" + base + ")"
	if a.Scope == workspace.KindUser {
		where = "your home folder (" + base + ")"
	}
	bad := func(why string) error {
		return fmt.Errorf("%w: %s: skill %q: field from: %s %s; nothing of it was restored: put its registry copy %s back by hand, or fix the field",
			errkind.ErrInvalid, w.adoptedPath(), a.Name, a.From, why, a.Path)
	}
	rel := filepath.FromSlash(a.From)
	if filepath.IsAbs(a.From) {
		if rel, err = filepath.Rel(base, a.From); err != nil || !filepath.IsLocal(rel) {
			if real, rerr := filepath.Rel(workspace.RealPath(base), workspace.RealPath(a.From)); rerr == nil && filepath.IsLocal(real) {
				rel = real
			} else {
				return "", bad("is outside " + where + " (the project moved since adopt?)")
			}
		}
	}
	if !filepath.IsLocal(rel) {
		return "", bad("is outside " + where)
	}
	folder, name := path.Split(filepath.ToSlash(rel))
	if name != a.Name {
		return "", bad("does not end in the skill's name")
	}
	if workspace.IsAgentFolder(path.Clean(folder), a.Scope == workspace.KindUser) {
		return filepath.Join(base, rel), nil
	}
	return "", bad("is not in one of the agents' skill folders of " + where)
}

// backupOf is where an adoption's original was moved aside ("" for none).
func (w *space) backupOf(a Adoption) string {
	switch {
	case a.Backup == "":
		return ""
	case filepath.IsAbs(a.Backup):
		return a.Backup
	}
	return w.abs(a.Backup)
}

// pruneEmpty removes the folders under dir, and dir, that hold no file:
// what a move a kill interrupted leaves (its journal's replay writes the
// files but not the pruning), which would stop a move back.
func pruneEmpty(dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, and stays, when not empty
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Recover finishes or undoes the adopt and restore steps a kill
// interrupted, in this registry's list and the user registry's: a skill
// ends in the registry or in its agent's folder, never both, never only
// moved aside. It says what it did, one line a skill.
func Recover(w *workspace.Workspace) ([]string, error) { return spaceOf(w).recoverAll() }

func (w *space) recoverAll() ([]string, error) {
	var notes []string
	for _, ws := range w.adoptRegistries() {
		lock, err := ws.lockAdopt()
		if err != nil {
			return notes, err
		}
		n, err := ws.recoverLocked()
		lock.Release()
		notes = append(notes, n...)
		if err != nil {
			return notes, err
		}
	}
	return notes, nil
}

// adoptRegistries are the registries whose lists adopt and restore read
// from here: this one and the user registry.
func (w *space) adoptRegistries() []*space {
	var out []*space
	for _, r := range w.AdoptRegistries() {
		out = append(out, spaceOf(r))
	}
	return out
}

// recoverLocked is Recover of this registry's list; the caller
// holds the adopt lock.
func (w *space) recoverLocked() ([]string, error) {
	notes, err := w.recoverSwitches()
	if err != nil {
		return notes, err
	}
	all, err := w.Adopted()
	if err != nil {
		return notes, err
	}
	for _, a := range all {
		if a.State == "" {
			continue
		}
		note, err := w.recoverRecord(a)
		if err != nil {
			return notes, fmt.Errorf("recover the interrupted %s of %s: %w", strings.TrimSuffix(a.State, "ing")+"ion", a.Name, err)
		}
		notes = append(notes, a.Name+": "+note)
	}
	return notes, nil
}

// recoverRecord finishes or undoes one interrupted step, from what is on
// disk and in the registry, and updates the list; what it did.
func (w *space) recoverRecord(a Adoption) (string, error) {
	switch {
	case a.Root != "":
		s, err := w.Reg.Skill(a.Name)
		if errors.Is(err, registry.ErrNotFound) {
			return "no longer in the registry", w.drop(a.Name)
		}
		if err != nil {
			return "", err
		}
		if dir := path.Dir(path.Dir(s.Path)); dir != a.Root {
			pruneEmpty(w.abs(path.Join(a.Root, a.Name)))
			a.State = ""
			return "adopted (in " + dir + ")", w.journal(a)
		}
		pruneEmpty(w.abs(path.Dir(a.Path)))
		return "in its agent's folder " + a.Root, w.drop(a.Name)
	case a.State == StateAdopting:
		if w.Reg.HasSkill(a.Name) {
			a.State = ""
			return "adopted: the commit was made", w.journal(a)
		}
		dest, err := w.destOf(a)
		if err != nil {
			return "", err
		}
		if b := w.backupOf(a); b != "" && exists(b) && !exists(dest) {
			if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
				return "", err
			}
			if err := os.Rename(b, dest); err != nil {
				return "", err
			}
			os.Remove(filepath.Dir(b))
		}
		return "put back in " + workspace.Describe(dest) + ": the adopt was undone", w.drop(a.Name)
	default: // restoring
		dest, err := w.destOf(a)
		if err != nil {
			return "", err
		}
		if err := os.RemoveAll(dest + restoreSuffix); err != nil {
			return "", err
		}
		if w.Reg.HasSkill(a.Name) && !exists(dest) {
			a.State = ""
			return "still adopted: the restore was undone", w.journal(a)
		}
		var kept string
		if w.Reg.HasSkill(a.Name) {
			kept, err = w.finishRestore(a, dest)
		} else {
			kept, err = w.returnBackup(a, dest)
		}
		if err != nil {
			return "", err
		}
		note := "restored to " + workspace.Describe(dest)
		if kept != "" {
			note += "; " + KeptNote(kept)
		}
		return note, w.drop(a.Name)
	}
}

// Problems are the adopt steps a kill left unfinished, in this
// registry's list and the user registry's, and the originals moved aside
// that no list names (restore never looks there); for doctor.
func Problems(w *workspace.Workspace) (pending, strays []string, err error) {
	return spaceOf(w).problems()
}

func (w *space) problems() (pending, strays []string, err error) {
	for _, ws := range w.adoptRegistries() {
		all, err := ws.Adopted()
		if err != nil {
			return nil, nil, err
		}
		sw, err := ws.Switches()
		if err != nil {
			return nil, nil, err
		}
		for _, h := range sw {
			if h.State != "" {
				pending = append(pending, fmt.Sprintf("%s (%s, in %s)", h.Name, h.State, workspace.Describe(ws.HiddenPath())))
			}
		}
		named := map[string]bool{}
		for _, a := range all {
			if b := ws.backupOf(a); b != "" {
				named[filepath.Clean(b)] = true
			}
			if a.State != "" {
				pending = append(pending, fmt.Sprintf("%s (%s, in %s)", a.Name, a.State, workspace.Describe(ws.adoptedPath())))
			}
		}
		batches, _ := filepath.Glob(filepath.Join(ws.Reg.LocalDir(), "adopted", "*", "*"))
		for _, b := range batches {
			if !named[filepath.Clean(b)] {
				strays = append(strays, workspace.Describe(b))
			}
		}
	}
	sort.Strings(strays)
	return pending, strays, nil
}

// MovedSkills counts the skills an earlier megagit's adopt moved into
// this registry and the user registry, which adopt, adopt --restore and
// doctor --fix put back in their agent's folder (MigrateMoved).
func MovedSkills(w *workspace.Workspace) (int, error) { return spaceOf(w).movedSkills() }

func (w *space) movedSkills() (int, error) {
	n := 0
	for _, ws := range w.adoptRegistries() {
		all, err := ws.Adopted()
		if err != nil {
			return 0, err
		}
		n += len(all)
	}
	return n, nil
}

// MigrateMoved puts every skill an earlier megagit's adopt moved into a
// registry back in its agent's folder, of every scope; what it did, one
// line a skill.
func MigrateMoved(w *workspace.Workspace, o Options) ([]string, error) {
	return spaceOf(w).migrateMoved(o)
}

func (w *space) migrateMoved(o Options) ([]string, error) {
	o.Scope, o.Agent = "all", ""
	res := Result{Left: map[string]int{}}
	err := w.restoreMoved(o, &res)
	var notes []string
	for _, d := range res.Done {
		notes = append(notes, d.Name+": moved back to "+workspace.Describe(d.Dir))
	}
	for _, s := range res.Skipped {
		notes = append(notes, s.Name+": left: "+s.Reason)
	}
	return notes, err
}
