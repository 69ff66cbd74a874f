package registry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WorkTree is the root of the git work tree holding the registry; agent
// settings files (.claude/settings.json) live there.
func (r *Registry) WorkTree() string { return r.gitRoot }

// localPath resolves a name inside .megagit/local/, refusing names that
// would leave it (a session id from an agent is untrusted input).
func (r *Registry) localPath(name string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if name == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: local file name %q", ErrInvalid, name)
	}
	return filepath.Join(r.LocalDir(), clean), nil
}

// ReadLocal reads a file under .megagit/local/; a missing file is
// os.ErrNotExist.
func (r *Registry) ReadLocal(name string) ([]byte, error) {
	p, err := r.localPath(name)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// WriteLocal replaces a file under .megagit/local/ atomically, so a hook
// killed mid-write never leaves half a session file behind.
func (r *Registry) WriteLocal(name string, data []byte) error {
	p, err := r.localPath(name)
	if err != nil {
		return err
	}
	return writeFileAtomic(p, data, 0o644)
}

// AppendLocal appends one line to a local log. When the file grows past
// maxBytes it is rewritten atomically with only its newest lines (about half
// of maxBytes), so logs stay bounded without a separate rotation job.
// maxBytes <= 0 means unbounded.
func (r *Registry) AppendLocal(name string, line []byte, maxBytes int64) error {
	p, err := r.localPath(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	line = append(bytes.TrimRight(line, "\n"), '\n')
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(line)
	st, serr := f.Stat()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if serr != nil || maxBytes <= 0 || st.Size() <= maxBytes {
		return serr
	}
	return r.trimLocal(p, maxBytes/2)
}

// trimLocal keeps the newest whole lines of p that fit in keep bytes.
func (r *Registry) trimLocal(p string, keep int64) error {
	lock, err := r.Acquire(r.opts.LockTimeout)
	if err != nil {
		return err
	}
	defer lock.Release()
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if int64(len(data)) > keep {
		data = data[int64(len(data))-keep:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return writeFileAtomic(p, data, 0o644)
}
