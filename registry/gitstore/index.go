package gitstore

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// IndexEdit is one path of git's index to point at new content, or drop.
type IndexEdit struct {
	Path   string // work-tree-relative slash path
	Data   []byte
	Delete bool
	Mode   Mode // Executable, else the file is Regular
	// File is the file on disk holding Data, whose times, inode and owner
	// the entry records so git sees the file as unchanged ("" for none).
	File string
}

// IndexPaths lists the paths git's index holds.
func (s *Store) IndexPaths() ([]string, error) {
	idx, err := s.repo.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	out := make([]string, len(idx.Entries))
	for i, e := range idx.Entries {
		out[i] = e.Name
	}
	return out, nil
}

// UpdateIndex points the index entries of the edited paths at their new
// content, leaving every other entry (the user's staged work) alone.
func (s *Store) UpdateIndex(edits []IndexEdit) error {
	idxPath := filepath.Join(s.gitDir, "index")
	return withLock(idxPath, s.notes, func(f *os.File) error {
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
		for _, c := range edits {
			_, _ = idx.Remove(c.Path)
			if c.Delete {
				continue
			}
			e := idx.Add(c.Path)
			e.Hash = BlobHash(c.Data)
			e.Mode = Regular
			if c.Mode == Executable {
				e.Mode = Executable
			}
			e.Size = uint32(len(c.Data))
			if c.File == "" {
				continue
			}
			if st, err := os.Stat(c.File); err == nil {
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
