package local

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/megagit/megagit/errkind"
)

// Dir is a registry's gitignored per-machine folder, .megagit/local/. It is a
// small value (two fields), cheap to build on every call.
type Dir struct {
	path        string        // absolute .megagit/local folder
	lockTimeout time.Duration // how long Append waits for the lock to trim
}

// Open returns the local folder of the registry at root (the folder holding
// .megagit/, as Find returns). It touches no file: the folder is created by
// the first write. lockTimeout bounds how long Append waits to trim a log.
func Open(root string, lockTimeout time.Duration) Dir {
	p := filepath.Join(root, filepath.FromSlash(MachineDir))
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return Dir{path: p, lockTimeout: lockTimeout}
}

// Path is the absolute .megagit/local folder.
func (d Dir) Path() string { return d.path }

// Resolve resolves a name inside .megagit/local/, refusing names that
// would leave it (a session id from an agent is untrusted input), and a
// .megagit/local that is not a folder (Check).
func (d Dir) Resolve(name string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(name))
	if name == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: local file name %q", errkind.ErrInvalid, name)
	}
	if err := d.Check(); err != nil {
		return "", err
	}
	return filepath.Join(d.path, clean), nil
}

// Check refuses a .megagit/local that is there but is not a folder of its
// own: a symlink (a teammate can commit one, to a skill folder whose
// config.yaml would then be this machine's settings, and whose files the
// hooks would write) or a file. A missing folder is fine: the first write
// makes it. The error is ErrLocalDir (and errkind.ErrInvalid), naming the path.
func (d Dir) Check() error { return CheckLocalDir(d.path) }

// CheckLocalDir is Check for the .megagit/local folder at p.
func CheckLocalDir(p string) error {
	st, err := os.Lstat(p)
	if err != nil || st.IsDir() {
		return nil // missing (made by the first write), or a folder; any other error meets the read or write
	}
	what := kind(st.Mode())
	if st.Mode().IsRegular() {
		what = "a regular file"
	}
	return invalid(ErrLocalDir, p+" is "+what+", not a folder: megagit keeps this machine's own state there and reads or writes nothing through it (`megagit doctor --fix` replaces it with a folder)")
}

// LocalDirKind says what the .megagit/local of the registry at root is
// when it is not a folder ("a symlink", "a regular file"), "" when it is
// one or is missing: doctor's check and its --fix.
func LocalDirKind(root string) string {
	st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(MachineDir)))
	if err != nil || st.IsDir() {
		return ""
	}
	if st.Mode().IsRegular() {
		return "a regular file"
	}
	return kind(st.Mode())
}

// Read reads a file under .megagit/local/; a missing file is
// os.ErrNotExist.
func (d Dir) Read(name string) ([]byte, error) {
	p, err := d.Resolve(name)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// Write replaces a file under .megagit/local/ atomically, so a hook
// killed mid-write never leaves half a session file behind.
func (d Dir) Write(name string, data []byte) error {
	p, err := d.Resolve(name)
	if err != nil {
		return err
	}
	return WriteFileAtomic(p, data, 0o600)
}

// Append appends one line to a local log. When the file grows past
// maxBytes it is rewritten atomically with only its newest lines (about half
// of maxBytes), so logs stay bounded without a separate rotation job.
// maxBytes <= 0 means unbounded.
func (d Dir) Append(name string, line []byte, maxBytes int64) error {
	p, err := d.Resolve(name)
	if err != nil {
		return err
	}
	if err := MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	line = append(bytes.TrimRight(line, "\n"), '\n')
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, filePerm(p, 0o600))
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
	return d.trim(p, maxBytes/2)
}

// trim keeps the newest whole lines of p that fit in keep bytes.
func (d Dir) trim(p string, keep int64) error {
	lock, err := d.Acquire(d.lockTimeout)
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
	return WriteFileAtomic(p, data, 0o600)
}

// IsReadOnly reports whether err is a write refused because the file or
// its file system may not be written (permissions, a read-only mount).
func IsReadOnly(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// FixLocalDir makes the .megagit/local of the registry at root a folder
// again when it is not one (LocalDirKind): a symlink is removed (what it
// points to stays), anything else is moved aside to .megagit/local.file
// (.megagit/local.file.2, ...), so nothing is lost. It returns what was
// there ("" when it was a folder or missing) and, for a moved file, its
// new path.
func FixLocalDir(root string) (was, movedTo string, err error) {
	was = LocalDirKind(root)
	if was == "" {
		return "", "", nil
	}
	p := filepath.Join(root, filepath.FromSlash(MachineDir))
	if was == "a symlink" {
		if err := os.Remove(p); err != nil {
			return was, "", err
		}
	} else {
		movedTo = p + ".file"
		for i := 2; ; i++ {
			if _, err := os.Lstat(movedTo); errors.Is(err, fs.ErrNotExist) {
				break
			}
			movedTo = fmt.Sprintf("%s.file.%d", p, i)
		}
		if err := os.Rename(p, movedTo); err != nil {
			return was, "", err
		}
	}
	return was, movedTo, MkdirAll(p)
}
