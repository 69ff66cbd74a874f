// Package errkind is the family of sentinel errors that say what kind of
// failure an error is, whichever package made it: the command layer maps
// a kind to its exit code (errors.Is), and a package with its own wording
// makes a member of the family (Invalid) rather than a sentinel of its
// own. A pure leaf: every package may import it.
package errkind

import "errors"

// The kinds, one per exit code (internal/cli/exitcodes.go). Each package
// that returns one names it as its own too (registry.ErrNotFound is
// ErrNotFound), so a caller reads it where the error is made.
var (
	// ErrInvalid marks bad input: a name, a verdict word, a file, a field.
	ErrInvalid = errors.New("invalid input")
	// ErrNotRegistry: no .megagit/ here or in a parent.
	ErrNotRegistry = errors.New("not a megagit registry")
	// ErrLocked: another megagit process holds the registry lock (or a
	// megagit serve already runs for it).
	ErrLocked = errors.New("registry is locked by another megagit process")
	// ErrNotFound: the named skill, commit or verdict does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: the skill being created is already there.
	ErrExists = errors.New("already exists")
	// ErrDirty: a file megagit must change has uncommitted edits of the user's.
	ErrDirty = errors.New("uncommitted changes")
	// ErrNoIdentity: git has no user.name / user.email to author commits with.
	ErrNoIdentity = errors.New("no git identity")
	// ErrConflict: both sides changed the same thing in a way megagit cannot merge.
	ErrConflict = errors.New("conflict")
	// ErrLocalEdits: an installed skill's files were edited here since it
	// was installed, and an update would overwrite them.
	ErrLocalEdits = errors.New("edited since installed")
	// ErrTimeout: a network peer did not answer in time.
	ErrTimeout = errors.New("timed out")
)

// Invalid is a member of the ErrInvalid family that prints as label (a
// package's own prefix, such as "config"): errors.Is(err, ErrInvalid)
// holds for it and for every error wrapping it.
func Invalid(label string) error { return invalid(label) }

type invalid string

func (e invalid) Error() string { return string(e) }

func (e invalid) Is(target error) bool { return target == ErrInvalid }
