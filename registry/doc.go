// Package registry owns every byte a megagit registry keeps on disk and every
// git operation on it: skills and their frontmatter, the verdict ledger, the
// commits that record verdicts, the process lock and crash recovery.
//
// All writes follow one protocol (see commit.go): take the lock, replay any
// journal left by a crashed writer, refuse to touch files the user has edited,
// write a redo journal, build the commit from HEAD's tree plus megagit's own
// changes (never from the index, so the user's staged work is never swept in),
// update the working files atomically, move the branch, drop the journal.
package registry
