package registry

// TornRefs lists the loose ref files (paths under the git folder, like
// "refs/remotes/origin/main") that hold neither a commit hash nor a
// "ref: " line: what a git tool killed while writing a ref in place
// leaves, and what git fsck reports as a broken ref.
func (r *Registry) TornRefs() []string { return r.git.TornRefs() }

// RemoveTornRemoteRefs deletes the torn refs under refs/remotes/ and
// returns them. They only mirror a remote, so the next fetch writes them
// again; left alone, they make every fetch fail. Torn refs elsewhere (a
// branch or a tag) are never deleted: their commit has to be found again.
func (r *Registry) RemoveTornRemoteRefs() []string { return r.git.RemoveTornRemoteRefs() }

// StaleGitLocks lists the git lock files (like refs/heads/main.lock) that
// a killed megagit left behind. Plain git refuses to write the file such a
// lock guards until it is removed; megagit removes it the next time it
// writes the same file, or at `megagit doctor --fix`.
func (r *Registry) StaleGitLocks() []string { return r.git.StaleLocks() }

// SyncLockFile is the lock in .megagit/local/ that serialises syncs of
// one registry; fetches and pushes write their refs under it.
const SyncLockFile = "sync.lock"

// RemoveStaleGitLocks deletes what StaleGitLocks lists, with the notes
// that name them, and returns the removed locks. It holds the sync lock,
// then the registry lock (sync's order), under which megagit writes every
// ref, so no live megagit takes one of these locks over meanwhile.
func (r *Registry) RemoveStaleGitLocks() ([]string, error) {
	netLock, err := r.Local().AcquireFile(SyncLockFile, r.opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer netLock.Release()
	lock, err := r.Local().Acquire(r.opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	return r.git.RemoveStaleLocks(), nil
}
