package registry

import (
	"time"

	"github.com/megagit/megagit/registry/local"
)

// Lock is the registry's single-writer lock (see local.Lock); an alias so
// callers of Acquire keep compiling.
type Lock = local.Lock

// LockInfo describes who holds (or last held) the lock, for doctor.
type LockInfo = local.LockInfo

// Acquire waits up to timeout for the lock.
func (r *Registry) Acquire(timeout time.Duration) (*Lock, error) {
	return r.Local().Acquire(timeout)
}

// acquireSync serialises syncs of one registry: go-git rewrites
// remote-tracking refs in place, so two fetches at once could read each
// other's half-written refs. Writers of verdicts never wait on it.
func (r *Registry) acquireSync(timeout time.Duration) (*Lock, error) {
	return r.Local().AcquireFile("sync.lock", timeout)
}

// LockState reports whether another process holds the lock right now.
func (r *Registry) LockState() LockInfo { return r.Local().LockState() }
