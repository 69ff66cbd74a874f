package local

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// LogFile is a bounded log that more than one process writes through the
// same open file (a server's stderr, opened by the hook that started it):
// past its bound the older half goes, trimmed in place rather than
// replaced, so every holder goes on writing to the one file.
type LogFile struct {
	mu  sync.Mutex
	f   *os.File
	max int64
}

// OpenLog opens (creating it, the user's alone) a log under
// .megagit/local/ for appending, trimmed first if it is past maxBytes.
func (d Dir) OpenLog(name string, maxBytes int64) (*LogFile, error) {
	p, err := d.Resolve(name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	l := &LogFile{f: f, max: maxBytes}
	l.trim()
	return l, nil
}

// AsLog bounds a log already open for appending (f was opened with
// O_APPEND, as OpenLog opens it, and readable).
func AsLog(f *os.File, maxBytes int64) *LogFile { return &LogFile{f: f, max: maxBytes} }

// File is the log's open file, to hand to a child process as its stdout
// and stderr.
func (l *LogFile) File() *os.File { return l.f }

// Close closes this process's copy of the log.
func (l *LogFile) Close() error { return l.f.Close() }

// Write appends p, then trims the log if it grew past its bound.
func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.f.Write(p)
	l.trim()
	return n, err
}

// trim keeps the newest whole lines within half the bound when the log
// is past it, rewriting the file in place. A log that cannot be read
// (stderr on a terminal, say) is left as it is.
func (l *LogFile) trim() {
	st, err := l.f.Stat()
	if err != nil || !st.Mode().IsRegular() || l.max <= 0 || st.Size() <= l.max {
		return
	}
	keep := l.max / 2
	tail := make([]byte, keep)
	n, err := l.f.ReadAt(tail, st.Size()-keep)
	if err != nil && err != io.EOF {
		return
	}
	tail = tail[:n]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	if l.f.Truncate(0) == nil {
		_, _ = l.f.Write(tail) // O_APPEND: at the new end, the start
	}
}
