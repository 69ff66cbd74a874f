package history

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// openSession opens a session file for reading, refusing what is not one:
// a path that is not where its agent keeps sessions (isSessionPath), a
// folder of the agent's below its session folder that is a symlink (a
// project's, Codex's day folders; Sessions gives paths whose folders are
// real), the file itself a symlink, a FIFO, a device or a folder. The file
// is opened through an os.Root of its folder without blocking, and must
// still be the file looked at.
func openSession(s Session) (*os.File, int64, error) {
	levels := sessionLevels(s.Agent, s.Path)
	if !filepath.IsAbs(s.Path) || levels == 0 {
		return nil, 0, fmt.Errorf("%w of %s: %s", ErrNotSession, s.Agent, s.Path)
	}
	path := filepath.Clean(s.Path)
	dir, base := filepath.Dir(path), filepath.Base(path)
	for d, i := dir, 1; i < levels; d, i = filepath.Dir(d), i+1 {
		st, err := os.Lstat(d)
		if err != nil {
			return nil, 0, err
		}
		if !st.IsDir() {
			return nil, 0, fmt.Errorf("%w: %s is reached through a symlink", ErrNotSession, s.Path)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, 0, err
	}
	defer root.Close()
	seen, err := root.Lstat(base)
	if err != nil {
		return nil, 0, err
	}
	if !seen.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%w: %s is not a regular file (%s)", ErrNotSession, s.Path, seen.Mode().Type())
	}
	f, err := root.OpenFile(base, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err == nil && (!st.Mode().IsRegular() || !os.SameFile(seen, st)) {
		err = fmt.Errorf("%w: %s changed while it was opened", ErrNotSession, s.Path)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// sessionLevels is how many names of path, the file's included, lie below
// the agent's session folder when path has the shape of its session files
// (Claude Code's projects/<project>/<session>.jsonl: 2, Codex's
// sessions/YYYY/MM/DD/rollout-*.jsonl: 4, Gemini CLI's
// tmp/<project>/chats/session-*.json[l]: 3); 0 when it has not.
func sessionLevels(agent, path string) int {
	base := filepath.Base(path)
	up := func(n int) string {
		p := path
		for range n {
			p = filepath.Dir(p)
		}
		return filepath.Base(p)
	}
	switch {
	case agent == AgentClaude && strings.HasSuffix(base, ".jsonl") && up(2) == "projects":
		return 2
	case agent == AgentCodex && strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl") && up(4) == "sessions":
		return 4
	case agent == AgentGemini && strings.HasPrefix(base, "session-") && (strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json")) &&
		up(1) == "chats" && up(3) == "tmp":
		return 3
	}
	return 0
}

// eachLine calls fn with each non-blank line of the first MaxFile bytes of
// r; a line longer than MaxLine is skipped as it is read and counted. The
// line passed is only valid during the call.
func eachLine(r io.Reader, res *Result, fn func(line []byte)) error {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(io.LimitReader(r, MaxFile))
	buf := linePool.Get().(*[]byte)
	line := *buf
	defer func() {
		br.Reset(nil)
		readerPool.Put(br)
		if cap(line) <= 1<<20 { // a huge line's buffer is let go
			*buf = line[:0]
			linePool.Put(buf)
		}
	}()
	for {
		var tooLong bool
		var err error
		line, tooLong, err = readLine(br, line[:0], MaxLine)
		switch {
		case tooLong:
			res.Lines++
			res.Long++
		case len(bytes.TrimSpace(line)) > 0:
			res.Lines++
			fn(line)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readerPool and linePool are reused from one file to the next:
// thousands of small sessions would otherwise each allocate buffers larger
// than themselves.
var (
	readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}
	linePool   = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}
)

// readLine reads one line of at most max bytes into buf, growing it by
// doubling (so reading a line costs at most twice its size, once); a
// longer one is read to its end, a buffer at a time, and reported as
// tooLong without its bytes. The buffer is returned either way, to be
// reused.
func readLine(r *bufio.Reader, buf []byte, max int) (line []byte, tooLong bool, err error) {
	line = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if n := len(line) + len(chunk); n > max {
				tooLong, line = true, line[:0]
			} else {
				if n > cap(line) {
					grown := make([]byte, len(line), min(max, 2*n))
					copy(grown, line)
					line = grown
				}
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}
