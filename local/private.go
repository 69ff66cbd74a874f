package local

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What megagit keeps under .megagit/local/ is one user's: the decision log
// (which may hold prompts), the sessions, the hook log, the journal (the
// contents of a commit in flight), this machine's config. Every file
// megagit writes there is 0600 and every folder 0700, whatever the umask:
// WriteAtomic and the Dir methods apply this to any path inside a
// .megagit/local/ folder, so no caller can forget it.

// privateRoot is the .megagit/local folder holding p, or "" when p lies
// in none.
func privateRoot(p string) string {
	sep := string(filepath.Separator)
	marker := sep + MetaDir + sep + "local"
	clean := filepath.Clean(p)
	if i := strings.Index(clean+sep, marker+sep); i >= 0 {
		return clean[:i+len(marker)]
	}
	return ""
}

// filePerm is the mode a file megagit writes at p gets: perm, but only
// its owner's bits inside .megagit/local/.
func filePerm(p string, perm os.FileMode) os.FileMode {
	if privateRoot(p) != "" {
		return perm & 0o700
	}
	return perm
}

// MkdirAll makes dir and its parents: 0700 inside .megagit/local/ (and
// that folder itself, narrowed to 0700 when it was made wider), 0755
// elsewhere. Every folder megagit makes goes through it, and so every
// file WriteAtomic writes: a .megagit/local that is a symlink or a file
// is refused (Check).
func MkdirAll(dir string) error {
	root := privateRoot(dir)
	if root == "" {
		return os.MkdirAll(dir, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := CheckLocalDir(root); err != nil {
		return err // a symlink or a file: nothing is written through it
	}
	if st, err := os.Stat(root); err == nil && st.IsDir() && st.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(root, st.Mode().Perm()&0o700) // an older megagit's 0755: best effort
	}
	return os.MkdirAll(dir, 0o700)
}

// MkdirPrivate makes dir (and its parents, 0755) with mode 0700: a folder
// of megagit's under the user's data folder.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}
