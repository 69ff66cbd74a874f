package install

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/gitstore"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/safetext"
	"github.com/megagit/megagit/skillfile"
)

// Install is one skill Skills writes from a fetched source.
type Install struct {
	Name  string            // the skill's name in the registry
	Files map[string][]byte // each file of the skill's folder in the source, by path inside it
	Exec  map[string]bool   // the files of Files that are executable in the source
	Entry skillslock.Entry  // its provenance; Skills fills Files
}

// Options says how Skills treats skills already there.
type Options struct {
	// Force overwrites an installed skill edited here since it was
	// installed; without it such a skill refuses the whole commit.
	Force bool
	// Action is the commit's verb: "install" or "update".
	Action string
}

// Installed is what Skills did to one skill.
type Installed struct {
	Name      string
	Path      string   // its SKILL.md in the registry
	Update    bool     // it was installed from the same source already
	Unchanged bool     // nothing to write: same files, same provenance
	Files     []string // registry files the commit wrote or deleted
}

// LocalFiles hashes the files of an installed skill's folder as they are
// on disk (SKILL.md without its mega_meta), to compare with its lock entry.
func LocalFiles(r *registry.Registry, name string) (map[string]string, error) {
	s, err := r.Skill(name)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(s.Path)
	files, err := r.FolderFiles(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range files {
		data, err := r.ReadSkillFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted by hand: missing from the folder
		}
		if err != nil {
			return nil, err
		}
		rel := strings.TrimPrefix(f, dir+"/")
		out[rel] = skillslock.FileHash(rel, data)
	}
	return out, nil
}

// Skills writes skills fetched from a source into the registry and
// their provenance into skillslock.File, in one commit (all or nothing). A new
// skill goes to the first root; a name the registry has already is refused
// unless the lock says it was installed from the same source, when its
// folder is replaced by the new files, its evidence kept (mega_meta and the
// ledger), unless it was edited here since (ErrLocalEdits, without Force).
// Each SKILL.md is linted as `megagit lint` does: errors refuse the commit,
// warnings are returned.
func Skills(r *registry.Registry, items []Install, opts Options) ([]Installed, []skillfile.Problem, gitstore.Hash, error) {
	var done []Installed
	var warnings []skillfile.Problem
	if opts.Action == "" {
		opts.Action = "install"
	}
	hash, err := r.Write(func() (string, []registry.Change, error) {
		done, warnings = nil, nil
		lock, err := r.ReadLock()
		if err != nil {
			return "", nil, err
		}
		var changes []registry.Change
		var errs []string
		var trailers strings.Builder
		seen := map[string]bool{}
		for _, it := range items {
			if seen[it.Name] {
				return "", nil, fmt.Errorf("%w: skill %q twice in one install", errkind.ErrInvalid, it.Name)
			}
			seen[it.Name] = true
			it.Entry.Files = skillslock.HashFiles(it.Files)
			// Never a credential in the lock or the commit, even when
			// the lock read held one (a teammate's edit by hand).
			it.Entry.Source = gitauth.Strip(it.Entry.Source)
			in, ch, problems, err := installOne(r, it, lock, opts)
			if err != nil {
				return "", nil, err
			}
			for _, p := range problems {
				if p.Severity == skillfile.SeverityError {
					errs = append(errs, fmt.Sprintf("%s:%d: field %s: %s", p.File, p.Line, p.Field, p.Message))
				} else {
					warnings = append(warnings, p)
				}
			}
			done = append(done, in)
			if in.Unchanged {
				continue
			}
			changes = append(changes, ch...)
			lock.Skills[it.Name] = it.Entry
			fmt.Fprintf(&trailers, "Megagit-Action: %s\nMegagit-Skill: %s\nMegagit-Source: %s\nMegagit-Commit: %s\n",
				opts.Action, it.Name, it.Entry.Source, it.Entry.Commit)
		}
		if len(errs) > 0 {
			return "", nil, fmt.Errorf("%w: nothing installed: %s", errkind.ErrInvalid, strings.Join(errs, "; "))
		}
		if len(changes) == 0 {
			return "", nil, nil
		}
		changes = append(changes, registry.Change{Path: skillslock.File, Data: lock.Format()})
		var names []string
		sources := map[string]bool{}
		for _, in := range done {
			if !in.Unchanged {
				names = append(names, in.Name)
			}
		}
		for _, it := range items {
			sources[gitauth.Strip(it.Entry.Source)] = true
		}
		subject := fmt.Sprintf("skills: %s %s", opts.Action, strings.Join(names, ", "))
		if len(sources) == 1 {
			subject += " from " + gitauth.Strip(items[0].Entry.Source)
		}
		subject, _ = safetext.Reason.Clean(subject)
		return fmt.Sprintf("%s\n\n%s", subject, trailers.String()), changes, nil
	})
	if err != nil {
		return nil, nil, hash, err
	}
	return done, warnings, hash, nil
}

// installOne is the changes that write one skill, and its SKILL.md's lint.
func installOne(r *registry.Registry, it Install, lock skillslock.Lock, opts Options) (Installed, []registry.Change, []skillfile.Problem, error) {
	in := Installed{Name: it.Name}
	if err := skillfile.ValidateName(it.Name); err != nil {
		return in, nil, nil, err
	}
	skillMD, ok := it.Files["SKILL.md"]
	if !ok {
		return in, nil, nil, fmt.Errorf("%w: skill %q has no SKILL.md", errkind.ErrInvalid, it.Name)
	}
	dir := path.Join(r.Options().Roots[0], it.Name)
	var existing *registry.Skill
	edited := false // its files here differ from the lock's (Force: they are overwritten)
	s, err := r.Skill(it.Name)
	switch {
	case err == nil:
		prev, ok := lock.Skills[it.Name]
		if !ok {
			return in, nil, nil, fmt.Errorf("%w: skill %q at %s is the registry's own, not installed from %s; rename one (megagit skill mv) or remove it first",
				errkind.ErrExists, it.Name, s.Path, it.Entry.Source)
		}
		if gitauth.Strip(prev.Source) != it.Entry.Source {
			return in, nil, nil, fmt.Errorf("%w: skill %q at %s was installed from %s, not %s; remove it first (megagit skill rm %s) to install the other",
				errkind.ErrExists, it.Name, s.Path, gitauth.Strip(prev.Source), it.Entry.Source, it.Name)
		}
		here, err := LocalFiles(r, it.Name)
		if err != nil {
			return in, nil, nil, err
		}
		d := skillslock.DiffHashes(prev.Files, here)
		if !d.Empty() && !opts.Force {
			return in, nil, nil, &LocalEditsError{Skill: it.Name, Diff: d}
		}
		edited = !d.Empty()
		existing, dir, in.Update = s, path.Dir(s.Path), true
	case errors.Is(err, errkind.ErrNotFound):
		if err := r.RefuseTaken(it.Name); err != nil {
			return in, nil, nil, err
		}
	default:
		return in, nil, nil, err
	}
	in.Path = path.Join(dir, "SKILL.md")

	// The registry's evidence, never the source's: a SKILL.md from another
	// registry carries its mega_meta, which is not ours.
	f, err := skillfile.Parse(in.Path, skillMD)
	if err != nil {
		problems := skillfile.Lint(it.Name, in.Path, skillMD) // names the parse error
		for _, p := range problems {
			if p.Severity == skillfile.SeverityError {
				return in, nil, problems, nil
			}
		}
		return in, nil, append(problems, skillfile.Problem{File: in.Path, Field: "frontmatter", Message: err.Error(), Severity: skillfile.SeverityError}), nil
	}
	bare, err := f.WithoutEvidence()
	if err != nil {
		return in, nil, nil, fmt.Errorf("%w: %w", errkind.ErrInvalid, err)
	}
	problems := skillfile.Lint(it.Name, in.Path, bare)
	write := bare
	if existing != nil && existing.File.HasEvidence() {
		nf, err := skillfile.Parse(in.Path, bare)
		if err != nil {
			return in, nil, nil, fmt.Errorf("%w: %w", errkind.ErrInvalid, err)
		}
		if write, err = nf.WithEvidence(existing.Evidence); err != nil {
			return in, nil, nil, err
		}
	}
	if existing != nil && !edited && lock.Skills[it.Name].Equal(it.Entry) {
		in.Unchanged = true
		return in, nil, problems, nil
	}

	var changes []registry.Change
	names := make([]string, 0, len(it.Files))
	for name := range it.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := checkFileName(name, it.Entry); err != nil {
			return in, nil, nil, err
		}
		data := it.Files[name]
		if name == "SKILL.md" {
			data = write
		}
		p := path.Join(dir, name)
		changes = append(changes, registry.Change{Path: p, Data: data, Mode: gitstore.ExecMode(it.Exec[name])})
		in.Files = append(in.Files, p)
	}
	if existing != nil {
		old, err := r.FolderFiles(dir)
		if err != nil {
			return in, nil, nil, err
		}
		for _, p := range old {
			if _, ok := it.Files[strings.TrimPrefix(p, dir+"/")]; !ok {
				changes = append(changes, registry.Change{Path: p, Delete: true})
				in.Files = append(in.Files, p)
			}
		}
	}
	return in, changes, problems, nil
}

// checkFileName refuses a path inside a skill folder that could land
// outside it, in git's own files or in a .megagit folder (in any spelling
// some file system takes for one: local.SameName); the error names the
// file, the skill's folder in its source and the source (e, its secrets
// stripped).
func checkFileName(name string, e skillslock.Entry) error {
	where := fmt.Sprintf("skill folder %s in %s", e.Path, e.Source)
	if len(e.Commit) >= 12 {
		where += " (commit " + e.Commit[:12] + ")"
	}
	clean := path.Clean(name)
	if clean != name || path.IsAbs(name) || name == "." || strings.HasPrefix(name, "../") || name == ".." {
		return fmt.Errorf("%w: %s: file %q is not a plain path inside the skill's folder", errkind.ErrInvalid, where, name)
	}
	for _, part := range strings.Split(name, "/") {
		if local.IsDotGit(part) {
			return fmt.Errorf("%w: %s: file %q is inside a .git folder", errkind.ErrInvalid, where, name)
		}
		if local.SameName(part, local.MetaDir) {
			return fmt.Errorf("%w: %s: %s: %s", errkind.ErrInvalid, where, name, registry.NestedMetaDir)
		}
	}
	return nil
}

// LocalEditsError says which files of an installed skill differ here from
// what was installed: an update would overwrite them.
type LocalEditsError struct {
	Skill string
	Diff  skillslock.FileDiff // installed -> here
}

func (e *LocalEditsError) Error() string {
	var parts []string
	for _, f := range e.Diff.Changed {
		parts = append(parts, f+" changed")
	}
	for _, f := range e.Diff.Added {
		parts = append(parts, f+" added")
	}
	for _, f := range e.Diff.Removed {
		parts = append(parts, f+" removed")
	}
	return fmt.Sprintf("skill %q was %s: %s", e.Skill, errkind.ErrLocalEdits, strings.Join(parts, ", "))
}

// Is makes errors.Is(err, ErrLocalEdits) hold.
func (e *LocalEditsError) Is(target error) bool { return target == errkind.ErrLocalEdits }
