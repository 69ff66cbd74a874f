package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/workspace"
)

// cannotCarry says why a skill folder holds something a registry's commit
// cannot carry, so adopt leaves the folder where it is ("" when all of it
// travels): a .git (a clone's history, remotes and unpushed commits, or a
// worktree's link), a file that is not a regular file, an empty folder.
func cannotCarry(dir string) string {
	why := ""
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			why = err.Error()
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case local.IsDotGit(e.Name()): // .GIT too: the same folder on macOS and Windows, and git refuses it in a commit
			why = "a git repository (it holds " + filepath.ToSlash(rel) + "): adopt cannot carry its history, remotes and unpushed commits into the registry"
		case e.IsDir():
			if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 && p != dir {
				why = "its folder " + filepath.ToSlash(rel) + " is empty, and a registry's commit cannot hold an empty folder (remove it, or put a file in it)"
			}
		case !e.Type().IsRegular():
			why = workspace.Describe(p) + " is not a regular file (a symlink?), and a registry's commit holds only files"
		}
		if why != "" {
			return fs.SkipAll
		}
		return nil
	})
	return why
}

// returnBackup ends the life of an adoption's original, moved aside by
// adopt, once the registry's copy is back in dest: the files adopt carried
// into the registry (regular files outside a .git folder: its commit keeps
// them) are removed; what it could not carry (a .git an earlier release
// moved aside with the folder, an empty folder) is moved back into dest.
// Nothing else is deleted: what dest already has in its place stays in the
// backup, which is kept and returned ("" when it is gone).
func (w *space) returnBackup(a Adoption, dest string) (string, error) {
	b := w.backupOf(a)
	if b == "" || !exists(b) {
		return "", nil
	}
	if err := returnInto(b, dest); err != nil {
		return b, err
	}
	if err := os.Remove(b); err != nil {
		if ents, rerr := os.ReadDir(b); rerr == nil && len(ents) > 0 {
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return b, err
		}
	}
	os.Remove(filepath.Dir(b)) // the batch folder, once empty
	return "", nil
}

// returnInto empties the folder from into dest, as returnBackup says.
func returnInto(from, dest string) error {
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		src, to := filepath.Join(from, e.Name()), filepath.Join(dest, e.Name())
		st, lerr := os.Lstat(to)
		switch {
		case e.Type().IsRegular() && !local.IsDotGit(e.Name()):
			// Carried: the registry's commit holds it, dest its current copy.
			if err := os.Remove(src); err != nil {
				return err
			}
		case e.IsDir() && !local.IsDotGit(e.Name()) && lerr == nil && st.IsDir():
			if err := returnInto(src, to); err != nil {
				return err
			}
			os.Remove(src) // fails, and stays, when something was kept
		case errors.Is(lerr, fs.ErrNotExist):
			if err := os.Rename(src, to); err != nil {
				return fmt.Errorf("put %s back in %s: %w", workspace.Describe(src), workspace.Describe(dest), err)
			}
		}
		// Anything else: dest has something in its place; it stays here.
	}
	return nil
}

// KeptNote says what a restore left in an original moved aside.
func KeptNote(kept string) string {
	return "the original adopt moved aside is kept in " + workspace.Describe(kept) + ": it holds what the restored folder has in its place (compare the two, then remove it)"
}
