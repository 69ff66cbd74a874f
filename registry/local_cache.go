package registry

import (
	"os"
	"path/filepath"
)

// WriteLocalCache replaces a file under .megagit/local/ atomically (temp
// file and rename, like WriteLocal) but without waiting for the disk
// (no fsync): for per-machine state a crash may lose the last version of
// without harm, such as the prompt hook's compiled index and session
// memory. On a busy disk an fsync costs the prompt hook several
// milliseconds on every prompt.
func (r *Registry) WriteLocalCache(name string, data []byte) error {
	p, err := r.localPath(name)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	name = tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return err
	}
	return os.Rename(name, p)
}
