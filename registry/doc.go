// Package registry is the store: every byte a megagit registry keeps on
// disk and every commit on its branch: skills (read and written with
// skillfile), the verdict ledger, the commits that record verdicts and
// actions, the process lock, crash recovery and doctor.
// Sharing through a remote (fetch, merge, push, clone) is registry/regsync,
// which moves the branch through CommitMerge.
//
// All writes follow one protocol (see commit.go): take the lock, replay any
// journal left by a crashed writer, refuse to touch files the user has edited,
// write a redo journal, build the commit from HEAD's tree plus megagit's own
// changes (never from the index, so the user's staged work is never swept in),
// update the working files atomically, move the branch, drop the journal.
package registry
