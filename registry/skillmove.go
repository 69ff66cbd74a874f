package registry

import (
	"bytes"
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
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
)

// maxImportFile bounds one file a skill import copies (a SKILL.md has its
// own, smaller cap), so a stray archive or binary fails clearly.
const maxImportFile = 32 << 20

// maxImportTotal bounds all the files one import copies: they are held in
// memory until the one commit (a git blob, then its compressed object), so
// ten large files must fail clearly, not exhaust the machine's memory.
const maxImportTotal = 64 << 20

// Moved is what RemoveSkill, RenameSkill and ImportSkills did to one skill:
// Files are the registry-relative paths the commit wrote or deleted.
type Moved struct {
	Name   string   // the skill's name after the command ("" for a removal: From)
	From   string   // its old name (rename, removal) or the folder it came from (import)
	Path   string   // its SKILL.md after the command ("" for a removal)
	Ledger string   // the ledger that moved or went with it, "" when it had none
	Files  []string // every file the commit touched for this skill
}

// RemoveSkill deletes a skill's folder and its ledger in one commit: git
// history keeps both (a revert of the commit brings them back).
func (r *Registry) RemoveSkill(name string) (Moved, gitstore.Hash, error) {
	var m Moved
	hash, err := r.Write(func() (string, []Change, error) {
		s, err := r.Skill(name)
		if err != nil {
			return "", nil, err
		}
		files, err := r.FolderFiles(path.Dir(s.Path))
		if err != nil {
			return "", nil, err
		}
		var changes []Change
		for _, f := range files {
			changes = append(changes, Change{Path: f, Delete: true})
		}
		m = Moved{From: name, Files: files}
		if _, err := os.Stat(r.abs(ledger.Path(name))); err == nil {
			changes = append(changes, Change{Path: ledger.Path(name), Delete: true})
			m.Ledger = ledger.Path(name)
			m.Files = append(m.Files, m.Ledger)
		}
		// An installed skill leaves the lock with it: nothing to update.
		lockCh, err := r.dropLockEntry(name)
		if err != nil {
			return "", nil, err
		}
		changes = append(changes, lockCh...)
		return fmt.Sprintf("skill(%s): remove\n\nMegagit-Action: remove\nMegagit-Skill: %s\n", name, name), changes, nil
	})
	if err == nil {
		r.pruneEmptyDirs(m.Files)
	}
	return m, hash, err
}

// RenameSkill moves a skill's folder to a new name within its root, sets
// the `name:` of its SKILL.md, and moves its ledger (every entry now names
// the new skill), so its evidence follows it; one commit.
func (r *Registry) RenameSkill(oldName, newName string) (Moved, gitstore.Hash, error) {
	var m Moved
	if err := skillfile.ValidateName(newName); err != nil {
		return m, gitstore.ZeroHash, err
	}
	hash, err := r.Write(func() (string, []Change, error) {
		s, err := r.Skill(oldName)
		if err != nil {
			return "", nil, err
		}
		if oldName == newName {
			return "", nil, fmt.Errorf("%w: skill %q already has that name", errkind.ErrInvalid, newName)
		}
		if err := r.RefuseTaken(newName); err != nil {
			return "", nil, err
		}
		oldDir := path.Dir(s.Path)
		newDir := path.Join(path.Dir(oldDir), newName)
		m = Moved{Name: newName, From: oldName, Path: path.Join(newDir, "SKILL.md")}
		var renamed []byte
		changes, files, err := r.moveFolder(oldDir, newDir, func(f string) ([]byte, error) {
			if f == s.Path {
				var err error
				renamed, err = s.File.WithName(newName)
				return renamed, err
			}
			return r.regularFile(f)
		})
		if err != nil {
			return "", nil, err
		}
		m.Files = files
		old, err := r.readLedger(ledger.Path(oldName))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", nil, err
		}
		if err == nil {
			m.Ledger = ledger.Path(newName)
			changes = append(changes, Change{Path: ledger.Path(oldName), Delete: true},
				Change{Path: m.Ledger, Data: renameLedger(old, oldName, newName)})
			m.Files = append(m.Files, ledger.Path(oldName), m.Ledger)
		}
		// An installed skill stays installed under its new name: its lock
		// entry moves with it, in the same commit, so skill update still
		// follows its source (and keeps its new name).
		lockCh, err := r.moveLockEntry(oldName, newName, s.Path, renamed)
		if err != nil {
			return "", nil, err
		}
		changes = append(changes, lockCh...)
		return fmt.Sprintf("skill(%s): rename from %s\n\nMegagit-Action: rename\nMegagit-Skill: %s\nMegagit-From: %s\nMegagit-Reason: renamed from %s\n",
			newName, oldName, newName, oldName, oldName), changes, nil
	})
	if err == nil {
		r.pruneEmptyDirs(m.Files)
	}
	return m, hash, err
}

// moveLockEntry is the change that moves oldName's lock entry to newName,
// or none when oldName was not installed. The lock hashes a SKILL.md as
// installed here, its name: included, so the hash becomes that of the
// installed file with the new name: the file as it is (renamed) when it
// was not edited since, else the installed version found in the history
// of skillMD (its old path), renamed; the edit still shows either way.
func (r *Registry) moveLockEntry(oldName, newName, skillMD string, renamed []byte) ([]Change, error) {
	lock, err := r.ReadLock()
	if err != nil {
		return nil, err
	}
	e, ok := lock.Skills[oldName]
	if !ok {
		return nil, nil
	}
	if _, taken := lock.Skills[newName]; taken {
		return nil, fmt.Errorf("%w: %s already has an entry for %q, a skill no longer in the registry: `megagit doctor --fix` drops it", ErrExists, skillslock.File, newName)
	}
	want := e.Files["SKILL.md"]
	installed := renamed
	if here, err := r.LocalFile(oldName, "SKILL.md"); err != nil || skillslock.FileHash("SKILL.md", here) != want {
		installed = nil
		if old := r.versionHashed(skillMD, want); old != nil {
			if f, err := skillfile.Parse(skillMD, old); err == nil {
				installed, _ = f.WithName(newName)
			}
		}
	}
	if installed != nil {
		files := make(map[string]string, len(e.Files))
		for f, h := range e.Files {
			files[f] = h
		}
		files["SKILL.md"] = skillslock.FileHash("SKILL.md", installed)
		e.Files = files
	}
	delete(lock.Skills, oldName)
	lock.Skills[newName] = e
	return []Change{{Path: skillslock.File, Data: lock.Format()}}, nil
}

// maxVersionsRead bounds the commits versionHashed reads.
const maxVersionsRead = 1000

// versionHashed is the version of registry file rel, in the branch's last
// maxVersionsRead commits, whose lock hash (skillslock.FileHash) is hash; nil for
// none.
func (r *Registry) versionHashed(rel, hash string) []byte {
	_, head, err := r.Head()
	if err != nil || head.IsZero() {
		return nil
	}
	seen := map[gitstore.Hash]bool{}
	var found []byte
	read := 0
	_ = r.git.Log(head, false, func(c *gitstore.Commit) error {
		if read >= maxVersionsRead {
			return gitstore.ErrStop
		}
		read++
		tree, err := r.git.Tree(c.Tree)
		if err != nil {
			return err
		}
		e, ok, err := tree.Find(r.GitPath(rel))
		if err != nil || !ok || !e.Mode.IsFile() || seen[e.Hash] {
			return nil
		}
		if size, err := r.git.BlobSize(e.Hash); err != nil || size > skillfile.MaxSize {
			return nil
		}
		seen[e.Hash] = true
		data, err := r.git.Blob(e.Hash)
		if err == nil && skillslock.FileHash(path.Base(rel), data) == hash {
			found = data
			return gitstore.ErrStop
		}
		return nil
	})
	return found
}

// renameLedger rewrites the skill of every readable entry; a line that does
// not read as an entry is kept as it is (doctor reports it, as before).
func renameLedger(data []byte, oldName, newName string) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var e ledger.Entry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if dec.Decode(&e) != nil || e.Skill != oldName {
			out.Write(line)
			continue
		}
		e.Skill = newName
		out.Write(ledger.Format([]ledger.Entry{e}))
	}
	return out.Bytes()
}

// ImportSkills copies skill folders from outside the registry into its
// first root, in one commit. Each source is a skill folder (holding a
// SKILL.md) or a folder of them. Every SKILL.md must pass the lint `megagit
// lint` runs (errors refuse the whole import, warnings are returned), and
// no name may exist in the registry already.
func (r *Registry) ImportSkills(sources []string) ([]Moved, []skillfile.Problem, gitstore.Hash, error) {
	var found []importDir
	var skipped []skillfile.Problem
	for _, src := range sources {
		dirs, links, err := skillDirs(src)
		if err != nil {
			return nil, nil, gitstore.ZeroHash, err
		}
		found = append(found, dirs...)
		skipped = append(skipped, links...)
	}
	moved, warnings, hash, err := r.importDirs(found, "")
	return moved, append(skipped, warnings...), hash, err
}

// AdoptSource is one skill folder AdoptSkills takes in, with the verdicts
// recorded for it while megagit could only read it.
type AdoptSource struct {
	Dir    string // the skill folder; its name is the skill's
	Ledger []ledger.Entry
}

// AdoptSkills is ImportSkills of skill folders that bring their evidence,
// with the commit's subject: each one's verdicts become its ledger and its
// mega_meta, in the same one commit, so the skill is never in the
// registry without them.
func (r *Registry) AdoptSkills(sources []AdoptSource, subject string) ([]Moved, []skillfile.Problem, gitstore.Hash, error) {
	found := make([]importDir, len(sources))
	for i, s := range sources {
		abs, err := filepath.Abs(s.Dir)
		if err != nil {
			return nil, nil, gitstore.ZeroHash, err
		}
		found[i] = importDir{dir: abs, name: filepath.Base(abs), ledger: s.Ledger}
	}
	return r.importDirs(found, subject)
}

// importDirs commits the skill folders found into the first root; subject
// "" names them.
func (r *Registry) importDirs(found []importDir, subject string) ([]Moved, []skillfile.Problem, gitstore.Hash, error) {
	var moved []Moved
	var warnings []skillfile.Problem
	hash, err := r.Write(func() (string, []Change, error) {
		var changes []Change
		var errs []string
		var budget int64 = maxImportTotal
		seen := map[string]string{}
		var msg strings.Builder
		for _, d := range found {
			if first, ok := seen[d.name]; ok {
				return "", nil, fmt.Errorf("%w: skill %q is in both %s and %s", errkind.ErrInvalid, d.name, first, d.dir)
			}
			seen[d.name] = d.dir
			if err := r.RefuseTaken(d.name); err != nil {
				return "", nil, err
			}
			m, ch, problems, err := r.importOne(d, &budget)
			if err != nil {
				return "", nil, err
			}
			for _, p := range problems {
				if p.Severity == skillfile.SeverityError {
					errs = append(errs, (&skillfile.FieldError{File: p.File, Line: p.Line, Field: p.Field, Msg: p.Message}).Error())
				} else {
					warnings = append(warnings, p)
				}
			}
			moved = append(moved, m)
			changes = append(changes, ch...)
			fmt.Fprintf(&msg, "Megagit-Action: import\nMegagit-Skill: %s\n", d.name)
		}
		if len(errs) > 0 {
			return "", nil, fmt.Errorf("%w: nothing imported: %s", errkind.ErrInvalid, strings.Join(errs, "; "))
		}
		if subject == "" {
			names := make([]string, len(moved))
			for i, m := range moved {
				names[i] = m.Name
			}
			subject = "skills: import " + strings.Join(names, ", ")
		}
		return fmt.Sprintf("%s\n\n%s", oneLine(subject), msg.String()), changes, nil
	})
	if err != nil {
		return nil, nil, hash, err
	}
	return moved, warnings, hash, nil
}

// importDir is one skill folder found under an import source, and the
// verdicts it brings (AdoptSkills).
type importDir struct {
	dir, name string
	ledger    []ledger.Entry
}

// ImportDirs are the skill folders ImportSkills takes from sources, in
// its order, absolute: so a caller can read them first (the audit).
func ImportDirs(sources []string) ([]string, error) {
	var out []string
	for _, src := range sources {
		dirs, _, err := skillDirs(src)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			out = append(out, d.dir)
		}
	}
	return out, nil
}

// skillDirs is src itself when it holds a SKILL.md, else its sub-folders
// that do, sorted by name; and a warning for each sub-folder that is a
// symlink, which import skips: it copies folders, never through a link.
func skillDirs(src string) ([]importDir, []skillfile.Problem, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, src, err)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("%w: %s is not a folder: import a skill folder (with a SKILL.md) or a folder of them", errkind.ErrInvalid, src)
	}
	if st, err := os.Stat(filepath.Join(abs, "SKILL.md")); err == nil {
		if !st.Mode().IsRegular() {
			return nil, nil, fmt.Errorf("%w: %s is not a file: a skill's SKILL.md must be one", errkind.ErrInvalid, filepath.Join(src, "SKILL.md"))
		}
		return []importDir{{dir: abs, name: filepath.Base(abs)}}, nil, nil
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, nil, err
	}
	var out []importDir
	var skipped []skillfile.Problem
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(abs, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil && st.Mode().IsRegular() {
				target, _ := os.Readlink(p)
				skipped = append(skipped, skillfile.Problem{File: filepath.Join(src, e.Name()), Severity: skillfile.SeverityWarning,
					Message: fmt.Sprintf("skipped: a symlink (to %s), and import copies folders, never through a link; import the folder it points to by its own path", target)})
			}
			continue
		}
		if !e.IsDir() {
			continue
		}
		if st, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil && st.Mode().IsRegular() {
			out = append(out, importDir{dir: p, name: e.Name()})
		}
	}
	if len(out) == 0 {
		if len(skipped) > 0 {
			links := make([]string, len(skipped))
			for i, p := range skipped {
				links[i] = p.File
			}
			return nil, nil, fmt.Errorf("%w: %s holds no SKILL.md but in folders that are symlinks (%s), which import skips; import the folders they point to by their own paths", errkind.ErrInvalid, src, strings.Join(links, ", "))
		}
		return nil, nil, fmt.Errorf("%w: %s holds no SKILL.md, nor do its folders", errkind.ErrInvalid, src)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, skipped, nil
}

// importOne reads one skill folder into changes under the first root and
// lints its SKILL.md.
// budget is what the import may still read, in bytes.
func (r *Registry) importOne(d importDir, budget *int64) (Moved, []Change, []skillfile.Problem, error) {
	dest := path.Join(r.opts.Roots[0], d.name)
	m := Moved{Name: d.name, From: d.dir, Path: path.Join(dest, "SKILL.md")}
	var changes []Change
	var problems []skillfile.Problem
	err := filepath.WalkDir(d.dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if local.IsDotGit(e.Name()) {
				return filepath.SkipDir
			}
			if local.SameName(e.Name(), local.MetaDir) {
				return fmt.Errorf("%w: %s: %s", errkind.ErrInvalid, p, NestedMetaDir)
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file (a symlink?); copy what it points to instead", errkind.ErrInvalid, p)
		}
		rel, err := filepath.Rel(d.dir, p)
		if err != nil {
			return err
		}
		to := path.Join(dest, filepath.ToSlash(rel))
		if info, err := e.Info(); err == nil {
			if *budget -= info.Size(); *budget < 0 {
				return fmt.Errorf("%w (%w): importing %s: the files to import are larger than %s in all (at %s); import fewer skills at a time, or leave large files out of the skill folder", errkind.ErrInvalid, local.ErrTooLarge, d.dir, local.Size(maxImportTotal), p)
			}
		}
		limit := int64(maxImportFile)
		if to == m.Path {
			limit = skillfile.MaxSize
		}
		data, err := readCapped(p, limit)
		if err != nil {
			return err
		}
		if to == m.Path {
			// The problems name the file to fix: the one imported from.
			problems = skillfile.Lint(d.name, p, data)
			if data, err = withLedgerEvidence(m.Path, data, d.ledger); err != nil {
				return err
			}
		}
		mode := gitstore.Regular
		if info, err := e.Info(); err == nil && info.Mode()&0o100 != 0 {
			mode = gitstore.Executable
		}
		changes = append(changes, Change{Path: to, Data: data, Mode: mode})
		m.Files = append(m.Files, to)
		return nil
	})
	if err == nil && len(d.ledger) > 0 {
		m.Ledger = ledger.Path(d.name)
		changes = append(changes, Change{Path: m.Ledger, Data: ledger.Format(d.ledger)})
		m.Files = append(m.Files, m.Ledger)
	}
	return m, changes, problems, err
}

// withLedgerEvidence is a SKILL.md with the evidence its verdicts replay
// to in its mega_meta (as it is without verdicts), so doctor finds the
// two agree.
func withLedgerEvidence(rel string, data []byte, entries []ledger.Entry) ([]byte, error) {
	if len(entries) == 0 {
		return data, nil
	}
	f, err := skillfile.Parse(rel, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errkind.ErrInvalid, err)
	}
	return f.WithEvidence(NativeEvidence(entries))
}

func readCapped(p string, limit int64) ([]byte, error) {
	return local.ReadRegular(p, limit) // checked again at open: the file may have changed since the walk
}

// RefuseTaken fails when a skill (in any root) or a ledger already uses name:
// a new skill must not inherit another's evidence.
func (r *Registry) RefuseTaken(name string) error {
	if s, err := r.Skill(name); err == nil {
		return fmt.Errorf("%w: skill %q at %s", ErrExists, name, s.Path)
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	if _, err := os.Stat(r.abs(ledger.Path(name))); err == nil {
		return fmt.Errorf("%w: %s (a ledger without its skill); move or delete it first", ErrExists, ledger.Path(name))
	}
	return nil
}

// regularFile reads a registry file for a move, refusing what a commit
// could not carry as a plain file.
func (r *Registry) regularFile(rel string) ([]byte, error) {
	st, err := os.Lstat(r.abs(rel))
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (a symlink?); move the skill by hand", errkind.ErrInvalid, rel)
	}
	return readCapped(r.abs(rel), maxImportFile)
}

// FolderFiles lists the files under a registry-relative folder, on disk and
// in HEAD (so a file deleted by hand is still part of the change, and
// checkClean reports it as the user's edit).
func (r *Registry) FolderFiles(dir string) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(r.abs(dir), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(r.root, p)
		if err != nil {
			return err
		}
		set[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	_, head, err := r.Head()
	if err != nil {
		return nil, err
	}
	tree, err := r.CommitTree(head)
	if err != nil {
		return nil, err
	}
	if tree != nil {
		sub, err := tree.Sub(r.GitPath(dir))
		if err != nil {
			return nil, err
		}
		err = sub.Files(func(f gitstore.File) error {
			set[path.Join(dir, f.Path)] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, nil
}

// pruneEmptyDirs removes the folders a commit left empty on disk (git has
// no empty folders, and an empty skill folder would only confuse), up to a
// skill root or the ledger folder, which stay.
func (r *Registry) pruneEmptyDirs(files []string) {
	keep := map[string]bool{".": true, "/": true, "": true, local.LedgerDir: true, local.MetaDir: true}
	for _, root := range r.opts.Roots {
		keep[path.Clean(root)] = true
	}
	for _, f := range files {
		for dir := path.Dir(f); !keep[dir]; dir = path.Dir(dir) {
			if err := os.Remove(r.abs(dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
				break // not empty: its parents are not either
			}
		}
	}
}

// MoveSkillToRoot moves a skill's folder, keeping its name and ledger, to
// another of the registry's roots (root as written in the config), in one
// commit; git follows the files across the move (`git log --follow`).
func (r *Registry) MoveSkillToRoot(name, root, reason string) (Moved, gitstore.Hash, error) {
	var m Moved
	known := false
	for _, rt := range r.opts.Roots {
		known = known || path.Clean(rt) == path.Clean(root)
	}
	if !known {
		return m, gitstore.ZeroHash, fmt.Errorf("%w: %q is not one of the registry's roots %q", errkind.ErrInvalid, root, r.opts.Roots)
	}
	hash, err := r.Write(func() (string, []Change, error) {
		s, err := r.Skill(name)
		if err != nil {
			return "", nil, err
		}
		oldDir := path.Dir(s.Path)
		newDir := path.Join(path.Clean(root), name)
		if oldDir == newDir {
			return "", nil, fmt.Errorf("%w: skill %q is already in %s", errkind.ErrInvalid, name, root)
		}
		if _, err := os.Lstat(r.abs(newDir)); err == nil {
			return "", nil, fmt.Errorf("%w: %s exists; move or delete it first", ErrExists, newDir)
		}
		m = Moved{Name: name, From: s.Path, Path: path.Join(newDir, "SKILL.md")}
		changes, files, err := r.moveFolder(oldDir, newDir, r.regularFile)
		if err != nil {
			return "", nil, err
		}
		m.Files = files
		return fmt.Sprintf("skill(%s): move to %s\n\nMegagit-Action: move\nMegagit-Skill: %s\nMegagit-From: %s\nMegagit-Reason: %s\n",
			name, newDir, name, oldDir, oneLine(reason)), changes, nil
	})
	if err == nil {
		r.pruneEmptyDirs(m.Files)
	}
	return m, hash, err
}

// moveFolder is the changes that move every file of the registry folder
// oldDir under newDir (data gives each file's bytes there), and the files
// touched: each old path and its new one.
func (r *Registry) moveFolder(oldDir, newDir string, data func(f string) ([]byte, error)) ([]Change, []string, error) {
	files, err := r.FolderFiles(oldDir)
	if err != nil {
		return nil, nil, err
	}
	var changes []Change
	var touched []string
	for _, f := range files {
		b, err := data(f)
		if err != nil {
			return nil, nil, err
		}
		to := newDir + strings.TrimPrefix(f, oldDir)
		mode := gitstore.Regular
		if st, err := os.Lstat(r.abs(f)); err == nil && st.Mode()&0o100 != 0 {
			mode = gitstore.Executable
		}
		changes = append(changes, Change{Path: f, Delete: true}, Change{Path: to, Data: b, Mode: mode})
		touched = append(touched, f, to)
	}
	return changes, touched, nil
}
