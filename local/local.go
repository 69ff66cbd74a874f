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
)

// Layout names inside a registry.
const (
	MetaDir      = ".megagit"
	LedgerDir    = ".megagit/ledger"
	LocalDirName = ".megagit/local"
	ConfigPath   = ".megagit/config.yaml"
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
	ErrNotRegistry = errors.New("not a megagit registry")
	// ErrLocked: another megagit process held the lock for longer than the timeout.
	ErrLocked = errors.New("registry is locked by another megagit process")
	// ErrInvalid: a bad name, verdict word, file or field.
	ErrInvalid = errors.New("invalid input")
)

// Find walks up from dir to the first folder holding .megagit/.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, MetaDir)); err == nil && st.IsDir() {
			return d, nil
		}
		if filepath.Dir(d) == d {
			// The way out (`megagit init`, -C) is the command's hint.
			return "", fmt.Errorf("%w: no %s folder in %s or any parent", ErrNotRegistry, MetaDir, abs)
		}
	}
}
