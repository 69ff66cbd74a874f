package local

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
)

// WriteCache replaces a file under .megagit/local/ atomically (temp
// file and rename, like Write) but without waiting for the disk
// (no fsync): for per-machine state a crash may lose the last version of
// without harm, such as the prompt hook's compiled index and session
// memory. On a busy disk an fsync costs the prompt hook several
// milliseconds on every prompt.
func (d Dir) WriteCache(name string, data []byte) error {
	p, err := d.Resolve(name)
	if err != nil {
		return err
	}
	return WriteAtomic(p, 0o600, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// pruneMarker is the file in a pruned folder whose modification time says
// when Prune last scanned it; pruneEvery is how often it may.
const (
	pruneMarker = ".pruned"
	pruneEvery  = 24 * time.Hour
)

// Prune removes the files in dir under .megagit/local/ (such as
// session memories) not modified for maxAge, scanning at most once per
// day, so a hook can call it on every write for the price of one stat.
// It returns how many files it removed; a missing dir is not an error.
func (d Dir) Prune(dir string, maxAge time.Duration, now time.Time) (int, error) {
	p, err := d.Resolve(dir)
	if err != nil {
		return 0, err
	}
	marker := filepath.Join(p, pruneMarker)
	if st, err := os.Stat(marker); err == nil && now.Sub(st.ModTime()) < pruneEvery {
		return 0, nil
	}
	ents, err := os.ReadDir(p)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	// Mark first: a concurrent hook skips the scan rather than repeat it.
	if err := os.WriteFile(marker, nil, filePerm(marker, 0o600)); err != nil {
		return 0, err
	}
	if err := os.Chtimes(marker, now, now); err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range ents {
		if !e.Type().IsRegular() || e.Name() == pruneMarker {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) <= maxAge {
			continue // gone already, or recent
		}
		if err := os.Remove(filepath.Join(p, e.Name())); err == nil {
			removed++
		}
	}
	return removed, nil
}
