package cli

import (
	"errors"

	"github.com/megagit/megagit/errkind"

	"github.com/megagit/megagit/route/server"
	"github.com/spf13/cobra"
)

// Exit codes, documented in `megagit help exit-codes`.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitNotRegistry = 3
	exitNotFound    = 4
	exitInvalid     = 5
	exitLocked      = 6
	exitDirty       = 7
	exitNoIdentity  = 8
	exitConflict    = 9
	exitProblems    = 10
	exitUpdates     = 11
	exitTimeout     = 12
)

// errProblems: lint (or a similar check) found problems and printed them.
var errProblems = errors.New("problems found")

func exitCode(err error) int {
	var u usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.Is(err, errkind.ErrNotRegistry):
		return exitNotRegistry
	case errors.Is(err, errkind.ErrNotFound):
		return exitNotFound
	case errors.Is(err, errkind.ErrInvalid), errors.Is(err, errkind.ErrExists):
		return exitInvalid
	case errors.Is(err, errkind.ErrLocked), errors.Is(err, server.ErrRunning):
		return exitLocked
	case errors.Is(err, errkind.ErrDirty), errors.Is(err, errkind.ErrLocalEdits):
		return exitDirty
	case errors.Is(err, errkind.ErrNoIdentity):
		return exitNoIdentity
	case errors.Is(err, errkind.ErrConflict):
		return exitConflict
	case errors.Is(err, errProblems):
		return exitProblems
	case errors.Is(err, errUpdatesAvailable):
		return exitUpdates
	case errors.Is(err, errkind.ErrTimeout):
		return exitTimeout
	}
	return exitError
}

func exitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "List megagit's exit codes and what each means",
		Long: `megagit exits with:

   0  success
   1  any other error (I/O, git, a bug)
   2  usage: unknown flag or command, wrong number of arguments
   3  not a registry: no .megagit/ here or in a parent (run megagit init)
   4  not found: unknown skill, commit or verdict id
   5  invalid input: bad skill name, verdict word, SKILL.md or config field,
      or a skill that already exists
   6  locked: another megagit process held the registry lock too long, or
      a megagit serve already runs for the registry
   7  uncommitted changes: a file megagit must change has your own edits
      (or an installed skill edited here since, which skill update or
      install would overwrite without --force)
   8  no git identity: set git config user.name and user.email
   9  conflict: the branch moved during a write, both sides of a sync changed
      the same file, or the remote kept moving while sync pushed
  10  problems found: megagit lint, doctor or cache verify reported a failure
  11  updates available: megagit skill update --check found installed skills
      whose source changed
  12  timed out: a git remote did not connect, or stopped answering, within
      network.timeout_ms (install, update, sync, clone)

Hook commands (megagit hook ...) always exit 0 and print nothing on failure.`,
	}
}
