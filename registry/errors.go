package registry

import "github.com/megagit/megagit/errkind"

// The registry's sentinel errors are members of errkind's family, which
// the command layer maps to exit codes. ErrNotRegistry, ErrLocked and
// ErrInvalid come from package local and errkind as they are.
var (
	// ErrNotFound: the named skill, commit or verdict does not exist.
	ErrNotFound = errkind.ErrNotFound
	// ErrExists: the skill being created is already there.
	ErrExists = errkind.ErrExists
	// ErrDirty: a file megagit must change has uncommitted edits of the user's.
	ErrDirty = errkind.ErrDirty
	// ErrNoIdentity: git has no user.name / user.email to author commits with.
	ErrNoIdentity = errkind.ErrNoIdentity
	// ErrConflict: both sides changed the same thing in a way megagit cannot merge.
	ErrConflict = errkind.ErrConflict
	// ErrLocalEdits: an installed skill's files were edited here since it
	// was installed, and an update would overwrite them.
	ErrLocalEdits = errkind.ErrLocalEdits
)
