package registry

import (
	"time"

	"github.com/megagit/megagit/registry/local"
)

// WorkTree is the root of the git work tree holding the registry; agent
// settings files (.claude/settings.json) live there.
func (r *Registry) WorkTree() string { return r.gitRoot }

// Local is the registry's per-machine folder as a local.Dir, the lean form
// the hook binary uses without opening git.
func (r *Registry) Local() local.Dir { return local.Open(r.root, r.opts.LockTimeout) }

// ReadLocal reads a file under .megagit/local/ (see local.Dir.Read); a
// missing file is os.ErrNotExist.
func (r *Registry) ReadLocal(name string) ([]byte, error) { return r.Local().Read(name) }

// WriteLocal replaces a file under .megagit/local/ atomically, with fsync
// (see local.Dir.Write).
func (r *Registry) WriteLocal(name string, data []byte) error { return r.Local().Write(name, data) }

// AppendLocal appends one line to a local log bounded by maxBytes (see
// local.Dir.Append).
func (r *Registry) AppendLocal(name string, line []byte, maxBytes int64) error {
	return r.Local().Append(name, line, maxBytes)
}

// WriteLocalCache replaces a file under .megagit/local/ atomically without
// fsync, for state a crash may lose (see local.Dir.WriteCache).
func (r *Registry) WriteLocalCache(name string, data []byte) error {
	return r.Local().WriteCache(name, data)
}

// PruneLocal removes stale files in dir under .megagit/local/, scanning at
// most once per day (see local.Dir.Prune).
func (r *Registry) PruneLocal(dir string, maxAge time.Duration, now time.Time) (int, error) {
	return r.Local().Prune(dir, maxAge, now)
}
