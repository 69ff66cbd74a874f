package registry

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// withGitLock runs fn with git's own lock file for target held, so plain git
// commands running at the same moment see the old file or the new one. fn
// writes the new content to the lock file, which is then renamed over target.
// While megagit holds a git lock, a marker in markerDir names it and
// megagit's pid, so a lock left by a killed megagit is recognised and
// removed instead of blocking every later write; a lock without a marker
// belongs to git and is only waited for.
func withGitLock(target, markerDir string, fn func(f *os.File) error) error {
	lock := target + ".lock"
	marker := gitLockMarkerPath(markerDir, lock)
	// A marker left by a killed megagit: its lock (if any) is stale.
	if staleOwnLock(marker, lock) {
		_ = os.Remove(lock)
		_ = os.Remove(marker)
	}
	// The marker is written before the lock is taken, so a process killed at
	// any moment leaves either nothing or a marker naming its dead pid.
	_ = os.WriteFile(marker, []byte(fmt.Sprintf("%d\n%s\n", os.Getpid(), lock)), 0o644)
	var f *os.File
	var err error
	for i := 0; ; i++ {
		f, err = os.OpenFile(lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i >= 100 {
			os.Remove(marker)
			return fmt.Errorf("%s is locked by another git process (remove it if no git command is running): %w", lock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(lock)
		}
		os.Remove(marker)
	}()
	if err := fn(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	ok = true
	return os.Rename(lock, target)
}

// gitLockMarkerPath is the note in markerDir that names lock's owner.
func gitLockMarkerPath(markerDir, lock string) string {
	sum := sha256.Sum256([]byte(lock))
	return filepath.Join(markerDir, "gitlock-"+hex.EncodeToString(sum[:6]))
}

// staleOwnLock reports whether marker says lock was taken by a megagit
// process that is no longer running. A lock of a live megagit, or of git
// (no marker), is never called stale; a reused pid only keeps a stale lock
// a little longer.
func staleOwnLock(marker, lock string) bool {
	pid, path, ok := readLockMarker(marker)
	if !ok || path != lock || pid == os.Getpid() {
		return false
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// readLockMarker reads a note withGitLock writes: its pid and lock path.
func readLockMarker(marker string) (pid int, lock string, ok bool) {
	data, err := os.ReadFile(marker)
	if err != nil {
		return 0, "", false
	}
	pidStr, lock, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
	pid, err = strconv.Atoi(pidStr)
	return pid, lock, err == nil && lock != ""
}

func (r *Registry) gitLockMarker() string { return r.LocalDir() }

// updateIndex points the index entries of the changed paths at the content
// now on disk, leaving every other entry (the user's staged work) alone.
func (r *Registry) updateIndex(changes []Change) error {
	idxPath := filepath.Join(r.gitDir, "index")
	return withGitLock(idxPath, r.gitLockMarker(), func(f *os.File) error {
		idx := &index.Index{Version: 2}
		if in, err := os.Open(idxPath); err == nil {
			err = index.NewDecoder(bufio.NewReader(in)).Decode(idx)
			in.Close()
			if err != nil {
				return fmt.Errorf("read %s: %w", idxPath, err)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for _, c := range changes {
			name := r.GitPath(c.Path)
			_, _ = idx.Remove(name)
			if c.Delete {
				continue
			}
			e := idx.Add(name)
			e.Hash = plumbing.ComputeHash(plumbing.BlobObject, c.Data)
			e.Mode = filemode.Regular
			if c.Mode == filemode.Executable {
				e.Mode = filemode.Executable
			}
			e.Size = uint32(len(c.Data))
			if st, err := os.Stat(r.abs(c.Path)); err == nil {
				e.ModifiedAt = st.ModTime()
				e.CreatedAt = st.ModTime()
				if sys, ok := st.Sys().(*syscall.Stat_t); ok {
					e.Dev, e.Inode = uint32(sys.Dev), uint32(sys.Ino)
					e.UID, e.GID = sys.Uid, sys.Gid
				}
			}
		}
		sort.Slice(idx.Entries, func(i, j int) bool {
			if idx.Entries[i].Name != idx.Entries[j].Name {
				return idx.Entries[i].Name < idx.Entries[j].Name
			}
			return idx.Entries[i].Stage < idx.Entries[j].Stage
		})
		idx.Cache = nil // the cached-tree extension is not re-encoded; git rebuilds it
		// The encoder writes each field of each entry on its own: buffered,
		// a 10,000-skill index is a few writes instead of 100,000.
		w := bufio.NewWriterSize(f, 1<<16)
		if err := index.NewEncoder(w).Encode(idx); err != nil {
			return err
		}
		return w.Flush()
	})
}

// setRef moves branch from old (zero = must not exist yet) to new, checked
// under git's ref lock so a concurrent plain-git commit is never lost.
// Branches live in the shared git folder: from a linked worktree, a ref
// written under .git/worktrees/<name>/ would be one git never reads.
func (r *Registry) setRef(branch plumbing.ReferenceName, old, new plumbing.Hash) error {
	target := filepath.Join(r.commonDir, filepath.FromSlash(branch.String()))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	return withGitLock(target, r.gitLockMarker(), func(f *os.File) error {
		cur := plumbing.ZeroHash
		if ref, err := r.repo.Storer.Reference(branch); err == nil {
			cur = ref.Hash()
		} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
			return err
		}
		// cur == new: already applied by an interrupted run; rewrite it as is.
		if cur != old && cur != new {
			return fmt.Errorf("%w: %s moved to %s while megagit was writing (expected %s)", ErrConflict, branch.Short(), short(cur), short(old))
		}
		_, err := fmt.Fprintln(f, new.String())
		return err
	})
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}

// signature resolves author/committer like git: GIT_AUTHOR_* env, then the
// repository config, then the global config.
// HasIdentity says whether git has an identity to author megagit's
// commits with (nil), or why not (ErrNoIdentity, with the fix).
func (r *Registry) HasIdentity() error {
	_, err := r.signature(time.Now())
	return err
}

func (r *Registry) signature(now time.Time) (object.Signature, error) {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" || email == "" {
		for _, scope := range []config.Scope{config.LocalScope, config.GlobalScope, config.SystemScope} {
			cfg, err := r.repo.ConfigScoped(scope)
			if err != nil {
				continue
			}
			if name == "" {
				name = firstNonEmpty(cfg.Author.Name, cfg.User.Name)
			}
			if email == "" {
				email = firstNonEmpty(cfg.Author.Email, cfg.User.Email)
			}
			if name != "" && email != "" {
				break
			}
		}
	}
	if strings.TrimSpace(name) == "" || strings.TrimSpace(email) == "" {
		return object.Signature{}, fmt.Errorf("%w: set one with `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`", ErrNoIdentity)
	}
	return object.Signature{Name: name, Email: email, When: now}, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
