// Package registry is what a megagit registry keeps on disk and commits on
// its branch: skills (read and written with skillfile), their ledgers and
// verdicts, the commits that record verdicts and actions, the process
// lock, crash recovery, the two layouts and the registry's own doctor
// checks. The repository itself is registry/gitstore's; a ledger line's
// format, merge and replay are registry/ledger's; installs from git sources
// are registry/install's; sharing through a remote (fetch, merge, push,
// clone) is registry/regsync, which moves the branch through CommitMerge.
//
// All writes follow one protocol (see commit.go): take the lock, replay any
// journal left by a crashed writer, refuse to touch files the user has edited,
// write a redo journal, build the commit from HEAD's tree plus megagit's own
// changes (never from the index, so the user's staged work is never swept in),
// update the working files atomically, move the branch, drop the journal.
package registry
