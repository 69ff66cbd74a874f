// Package local owns a megagit registry's per-machine files: the gitignored
// .megagit/local/ folder, its atomic writes, bounded logs, pruning and the
// single-writer lock. It imports only the standard library and
// golang.org/x/sys/unix, so the prompt hook binary can use it without
// linking git, YAML or config code; package registry delegates to it.
package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/errkind"
)

// Layout names inside a registry.
const (
	MetaDir    = ".megagit"
	LedgerDir  = ".megagit/ledger"
	MachineDir = ".megagit/local"
	ConfigPath = ".megagit/config.yaml"
	// RefFile, present only in the ref layout, names the branch the
	// registry commits to (refs/heads/megagit), beside a project's.
	RefFile = ".megagit/ref"
	// JournalFile, in the local folder, holds a write in progress: while
	// it exists, skill and ledger files may be half changed (registry
	// replays or discards it on open).
	JournalFile = "journal.json"
)

// Sentinel errors born here; registry and the commands return and match
// them as they are (errors.Is(err, local.ErrLocked)).
var (
	// ErrNotRegistry: no .megagit/ folder here or in any parent.
	ErrNotRegistry = errkind.ErrNotRegistry
	// ErrLocked: another megagit process held the lock for longer than the timeout.
	ErrLocked = errkind.ErrLocked
	// ErrLocalDir: .megagit/local is there but is not a folder (a
	// symlink, a file): nothing is read or written through it (an
	// errkind.ErrInvalid too).
	ErrLocalDir = errors.New(".megagit/local is not a folder")
)

// Find walks up from dir to the first folder holding .megagit/ that is a
// registry. A .megagit/ inside a skill of an enclosing registry — below a
// folder holding a SKILL.md, itself below that registry — is a file the
// skill carries, not a registry: megagit run in an installed skill's
// folder works on the registry around it.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// The folders from the first holding a .megagit/ up to the top: which
	// hold one, and which hold a SKILL.md.
	type level struct {
		dir         string
		meta, skill bool
	}
	var levels []level
	file := ""
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(filepath.Join(d, MetaDir))
		meta := err == nil && st.IsDir()
		if err == nil && !meta && len(levels) == 0 && file == "" {
			file = filepath.Join(d, MetaDir)
		}
		if meta || len(levels) > 0 {
			levels = append(levels, level{d, meta, holdsSkill(d)})
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	// From the top down: a .megagit/ is a registry unless a SKILL.md lies
	// at or above it, below the registry around it (whose own SKILL.md
	// does not count).
	found, inSkill := "", false
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		if l.meta && (found == "" || !inSkill && !l.skill) {
			found, inSkill = l.dir, false
			continue
		}
		inSkill = inSkill || l.skill
	}
	switch {
	case found != "":
		return found, nil
	case file != "":
		return "", fmt.Errorf("%w: %s", ErrNotRegistry, MetaFileError(file))
	}
	// The way out (`megagit init`, -C) is the command's hint.
	return "", fmt.Errorf("%w: no %s folder in %s or any parent", ErrNotRegistry, MetaDir, abs)
}

// holdsSkill says whether dir holds a SKILL.md: it is a skill's folder.
func holdsSkill(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "SKILL.md"))
	return err == nil
}

// MetaFileError says that path, a .megagit that is no folder, is no
// registry: Find and `megagit init` say it alike.
func MetaFileError(path string) string {
	return path + " is a file, not a registry's folder: move it away, then run `megagit init`"
}
