package registry

import "errors"

// Sentinel errors, so the command layer can map them to exit codes.
// ErrNotRegistry, ErrLocked and ErrInvalid are born in package local (the
// hook binary returns them without importing registry); registry returns
// those as they are.
var (
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
)
