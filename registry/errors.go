package registry

import "errors"

// Sentinel errors, so the command layer can map them to exit codes.
var (
	// ErrNotRegistry: no .megagit/ folder here or in any parent.
	ErrNotRegistry = errors.New("not a megagit registry")
	// ErrNotFound: the named skill, commit or verdict does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: the skill being created is already there.
	ErrExists = errors.New("already exists")
	// ErrLocked: another megagit process held the lock for longer than the timeout.
	ErrLocked = errors.New("registry is locked by another megagit process")
	// ErrDirty: a file megagit must change has uncommitted edits of the user's.
	ErrDirty = errors.New("uncommitted changes")
	// ErrInvalid: a bad name, verdict word, file or field.
	ErrInvalid = errors.New("invalid input")
	// ErrNoIdentity: git has no user.name / user.email to author commits with.
	ErrNoIdentity = errors.New("no git identity")
	// ErrConflict: both sides changed the same thing in a way megagit cannot merge.
	ErrConflict = errors.New("conflict")
)
