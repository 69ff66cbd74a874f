package local

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/megagit/megagit/errkind"
)

// Read limits for files megagit reads from a path it was given or found:
// each use names its own cap, so a path to /dev/zero or a runaway file
// costs at most that much memory.
const (
	// MaxConfig bounds a config file (.megagit/config.yaml, the user config).
	MaxConfig = 1 << 20
	// MaxLedger bounds one skill's ledger (about 100,000 verdicts).
	MaxLedger = 64 << 20
	// MaxTranscript bounds how much of an agent's transcript is read: the
	// tail, when the file is larger.
	MaxTranscript = 64 << 20
)

// OpenRegular opens path for reading and refuses anything but a regular
// file. The open does not block on a FIFO (O_NONBLOCK), and a FIFO, a
// device (/dev/zero), a socket or a folder is refused with an error naming
// the file and what it is, before a byte is read.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	return openRegular(path, path)
}

// openRegular is OpenRegular naming the file name in its errors.
func openRegular(path, name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s is %s, not a regular file", errkind.ErrInvalid, name, kind(st.Mode()))
	}
	return f, st, nil
}

// kind names a file mode for an error: "a named pipe (FIFO)".
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a plain file (" + m.Type().String() + ")"
}

// ErrTooLarge is what ReadRegular's error for a file over its cap is (an
// errkind.ErrInvalid too).
var ErrTooLarge = errors.New("file too large")

// ReadRegular reads the regular file at path, refusing other kinds of file
// (OpenRegular) and files larger than max bytes, with an error naming the
// file and the cap. A missing file is os.ErrNotExist.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, path, max)
}

func readCapped(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, tooLarge(name, max)
	}
	return data, nil
}

func tooLarge(name string, max int64) error {
	return invalid(ErrTooLarge, fmt.Sprintf("%s is larger than %s", name, Size(max)))
}

// ReadCapped reads r (stdin, say) up to max bytes, failing beyond with an
// error naming it.
func ReadCapped(r io.Reader, name string, max int64) ([]byte, error) {
	return readCapped(r, name, max)
}

// Size formats a byte count for a message: "4 MiB", "512 KiB", "10 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// OpenTail opens a regular file (OpenRegular) for reading its last max
// bytes: when the file is larger, the reader starts at the first whole line
// of its tail and skipped is how many bytes come before it. The partial
// line the cut falls in is skipped a buffer at a time, so a tail that
// begins inside one huge line costs one read per 64 KiB, not one per byte.
func OpenTail(path string, max int64) (r io.ReadCloser, skipped int64, err error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, 0, err
	}
	if st.Size() <= max {
		return readCloser{io.LimitReader(f, max), f}, 0, nil
	}
	start := st.Size() - max
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var n int64
	for n < max {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if err == nil {
			break // the newline that ends the partial line
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		f.Close()
		if errors.Is(err, io.EOF) {
			return readCloser{strings.NewReader(""), f}, st.Size(), nil
		}
		return nil, 0, err
	}
	n = min(n, max)
	return readCloser{io.LimitReader(br, max-n), f}, start + n, nil
}

// invalid is an errkind.ErrInvalid error that is also kind, worded once:
// "invalid input: <msg>".
func invalid(kind error, msg string) error {
	return &kindError{msg: errkind.ErrInvalid.Error() + ": " + msg, kinds: []error{kind, errkind.ErrInvalid}}
}

type kindError struct {
	msg   string
	kinds []error
}

func (e *kindError) Error() string   { return e.msg }
func (e *kindError) Unwrap() []error { return e.kinds }

type readCloser struct {
	io.Reader
	io.Closer
}

// ErrOutside is what Inside's error for a symlink that leaves the
// registry is (an errkind.ErrInvalid too).
var ErrOutside = errors.New("symlink to outside the registry")

// Inside resolves rel (slash form, relative to root) to the file it names,
// following symlinks only while they stay inside root: one that leads out
// is refused, with the same error from every command, which never names
// or echoes what lies outside. root must already be resolved
// (filepath.EvalSymlinks). A missing file is os.ErrNotExist.
func Inside(root, rel string) (string, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A dangling link still says where it points: refuse it when
			// that is outside, so a write never creates a file there.
			if target, lerr := linkTarget(p); lerr == nil && !within(root, target) {
				return "", outside(rel)
			}
		}
		return "", err
	}
	if !within(root, real) {
		return "", outside(rel)
	}
	return real, nil
}

func outside(rel string) error {
	return invalid(ErrOutside, rel+" is a symlink to outside the registry; megagit does not follow it (replace it with the file itself)")
}

// linkTarget is where the symlink at p (or the first symlink in its
// folders) points, made absolute.
func linkTarget(p string) (string, error) {
	t, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	return filepath.Clean(t), nil
}

// within says whether p is root or lies under it.
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// ReadInside reads a file of a registry (Inside, then ReadRegular): a
// symlink out of root, a FIFO or device, and a file over max are refused.
func ReadInside(root, rel string, max int64) ([]byte, error) {
	p, err := Inside(root, rel)
	if err != nil {
		return nil, err
	}
	f, _, err := openRegular(p, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, rel, max)
}
