package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/skillfile"
	"github.com/megagit/megagit/workspace"
)

// Restore undoes adopt, for the scopes and agent o asks for: the
// switches adopt wrote into the agents' settings are taken back (show),
// and skills an earlier megagit moved into a registry go back to their
// agent's folder (restoreMoved).
func Restore(w *workspace.Workspace, o Options) (Result, error) { return spaceOf(w).restore(o) }

func (w *space) restore(o Options) (Result, error) {
	res := Result{Hidden: []HiddenSwitch{}, Shown: []HiddenSwitch{}, Done: []Adopted{}, Skipped: []Skip{}, Left: map[string]int{}}
	if err := w.show(o, &res); err != nil {
		return res, err
	}
	err := w.restoreMoved(o, &res)
	for k, n := range res.Left {
		if n == 0 {
			delete(res.Left, k)
		}
	}
	return res, err
}

// restoreMoved puts the skills an earlier megagit's adopt moved into a
// registry back where their agent reads them: the project's from this
// registry (scope project), the personal ones from the user registry
// (scope user). A skill moved within the registry moves back to its root;
// an imported one is written back to its native folder from the
// registry's current files (without megagit's mega_meta, with the file
// modes it had; the original moved aside, with its .git, goes back in
// place), its verdicts go back to the user registry's ledger of read-only
// skills, then it leaves the registry (git history keeps it). Every step
// is journaled first. Before anything moves, every destination is
// checked: one outside the project (or the home folder) fails the whole
// restore, naming the list and the path.
func (w *space) restoreMoved(o Options, res *Result) error {
	project, user := w.scopes(o)
	for _, ws := range w.adoptRegistries() {
		if err := ws.restoreFrom(o, project, user, res); err != nil {
			return err
		}
	}
	return nil
}

// restoreFrom restores the wanted records of one registry's list, newest
// first.
func (w *space) restoreFrom(o Options, project, user bool, res *Result) error {
	if !o.DryRun {
		lock, err := w.lockAdopt()
		if err != nil {
			return err
		}
		defer lock.Release()
		if _, err := w.recoverLocked(); err != nil {
			return err
		}
	}
	all, err := w.Adopted()
	if err != nil {
		return err
	}
	var want []Adoption
	for _, a := range all {
		if (a.Scope == workspace.KindProject && project || a.Scope == workspace.KindUser && user) && (o.Agent == "" || o.Agent == a.Agent) {
			want = append(want, a)
			continue
		}
		res.Left[a.Scope]++
	}
	dests := make([]string, len(want))
	for i, a := range want {
		if a.Root != "" {
			continue
		}
		if dests[i], err = w.destOf(a); err != nil {
			return err
		}
	}
	for i := len(want) - 1; i >= 0; i-- {
		a := want[i]
		err := w.restoreOne(o, a, dests[i])
		var skip skipError
		if errors.As(err, &skip) {
			res.Skipped = append(res.Skipped, Skip{a.Name, dests[i], string(skip)})
			res.Left[a.Scope]++
			continue
		}
		var kept keptError
		if errors.As(err, &kept) {
			err = nil
		}
		if err != nil {
			return err
		}
		r := Adopted{Adoption: a, Dir: dests[i], Registry: w.Reg.Root(), Kept: string(kept)}
		if a.Root != "" {
			r.Dir = w.abs(path.Join(a.Root, a.Name))
		}
		res.Done = append(res.Done, r)
	}
	return nil
}

// skipError is a skill restore leaves alone, with why.
type skipError string

func (e skipError) Error() string { return string(e) }

func (w *space) restoreOne(o Options, a Adoption, dest string) error {
	if _, err := w.Reg.Skill(a.Name); errors.Is(err, registry.ErrNotFound) {
		return skipError("no longer in the registry (removed or renamed since): nothing to put back")
	} else if err != nil {
		return err
	}
	if a.Root != "" {
		if o.DryRun {
			return nil
		}
		pruneEmpty(w.abs(path.Join(a.Root, a.Name)))
		a.State = StateRestoring
		if err := w.journal(a); err != nil {
			return err
		}
		if _, _, err := w.Reg.MoveSkillToRoot(a.Name, a.Root, "restored to "+a.Agent+"'s skill folder "+a.Root); err != nil {
			_, rerr := w.recoverRecord(a)
			return errors.Join(err, rerr)
		}
		return w.drop(a.Name)
	}
	if exists(dest) {
		return skipError(dest + " exists again: move it away first")
	}
	if o.DryRun {
		return nil
	}
	a.State = StateRestoring
	if err := w.journal(a); err != nil {
		return err
	}
	if err := w.writeBack(a, dest); err != nil {
		_, rerr := w.recoverRecord(a)
		return errors.Join(fmt.Errorf("restoring %s to %s: %w", a.Name, dest, err), rerr)
	}
	kept, err := w.finishRestore(a, dest)
	if err != nil {
		return fmt.Errorf("%s is back in %s, but the registry still holds it: %w; `megagit doctor --fix` finishes the restore", a.Name, dest, err)
	}
	if kept != "" {
		err = keptError(kept)
	}
	return errors.Join(w.drop(a.Name), err)
}

// keptError is a restore done that kept the original adopt moved aside.
type keptError string

func (e keptError) Error() string { return string(e) }

// writeBack writes the registry's copy of a skill into a folder beside
// dest, each file with its recorded mode and SKILL.md without mega_meta,
// then renames that folder to dest.
func (w *space) writeBack(a Adoption, dest string) error {
	s, err := w.Reg.Skill(a.Name)
	if err != nil {
		return err
	}
	src := w.abs(path.Dir(s.Path))
	tmp := dest + restoreSuffix
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
		data, err := local.ReadInside(w.Reg.Root(), filepath.ToSlash(filepath.Join(path.Dir(s.Path), rel)), 64<<20)
		if err != nil {
			return err
		}
		if rel == "SKILL.md" {
			if data, err = s.File.WithoutEvidence(); err != nil {
				return err
			}
		}
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return os.Chmod(to, w.modeOf(a, filepath.ToSlash(rel)))
	})
	if err == nil {
		err = os.MkdirAll(filepath.Dir(dest), 0o755)
	}
	if err == nil {
		err = os.Rename(tmp, dest)
	}
	if err != nil {
		os.RemoveAll(tmp)
	}
	return err
}

// modeOf is the mode a restored file gets: the one adopt recorded, else
// (a record of an earlier release) the original's moved aside if it is
// still there, else 0644.
func (w *space) modeOf(a Adoption, rel string) fs.FileMode {
	if m, ok := a.Modes[rel]; ok {
		if v, err := strconv.ParseUint(m, 8, 32); err == nil {
			return fs.FileMode(v).Perm()
		}
	}
	if a.Modes == nil {
		if b := w.backupOf(a); b != "" {
			if st, err := os.Stat(filepath.Join(b, filepath.FromSlash(rel))); err == nil {
				return st.Mode().Perm()
			}
		}
	}
	return 0o644
}

// finishRestore ends a restore once the skill is back in dest (each step
// idempotent, so recovery reruns it): its verdicts go to the user
// registry's ledger of read-only skills, under the key of the file now in
// dest, then it leaves the registry and its original moved aside goes
// (returnBackup: what the registry never held goes back into dest), or is
// kept and returned.
func (w *space) finishRestore(a Adoption, dest string) (string, error) {
	entries, err := w.Reg.Ledger(a.Name)
	if err != nil {
		return "", err
	}
	if len(entries) > 0 {
		data, err := local.ReadRegular(filepath.Join(dest, "SKILL.md"), skillfile.MaxSize)
		if err != nil {
			return "", err
		}
		key := registry.NativeKey(a.Name, data)
		if _, _, err := w.UserRegistry().MergeNativeLedger(key, entries, "restored to "+workspace.Describe(dest)); err != nil {
			return "", fmt.Errorf("carry its evidence back: %w", err)
		}
	}
	if _, _, err := w.Reg.RemoveSkill(a.Name); err != nil {
		return "", err
	}
	return w.returnBackup(a, dest)
}
