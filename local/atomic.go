package local

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path through a temp file in the same folder
// and a rename, so readers see the old file or the new one, never half; the
// data reaches the disk before the rename, so a crash leaves one or the
// other too. The folder is made when missing.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return WriteAtomic(path, perm, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is megagit's one atomic file writer: write fills a temp file
// in path's folder (buffered), which then replaces path by a rename, so a
// reader never sees half a file and a failed or killed writer leaves the old
// one. durable waits for the disk before the rename; per-machine caches a
// crash may lose without harm (the route index, session memory, the
// trainer's pairs cache) skip that wait, which costs a prompt hook several
// milliseconds on a busy disk. The temp file is removed on any failure.
func WriteAtomic(path string, perm os.FileMode, durable bool, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := MkdirAll(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && durable {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(name, filePerm(path, perm)); err != nil {
		return err
	}
	return os.Rename(name, path)
}
