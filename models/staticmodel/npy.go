package staticmodel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// NumPy dtype strings megagit reads and writes.
const (
	DtypeFloat32 = "<f4"
	DtypeFloat16 = "<f2"
	DtypeInt8    = "|i1"
)

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// Limits that keep a hostile file from costing memory: numpy itself refuses
// headers over 10,000 bytes by default.
const (
	maxNPYHeader = 1 << 16
	maxNPYBytes  = 1 << 40
)

// ErrNPY marks a malformed or unsupported .npy file.
var ErrNPY = errors.New("npy")

// NPYHeader describes the array of a .npy file (format 1.0, 2.0 or 3.0):
// a 1-D or 2-D little-endian float32, float16 or int8 C-order array. A 1-D
// array has Cols == 1.
type NPYHeader struct {
	Dtype string // one of the Dtype constants
	Shape []int
	Rows  int
	Cols  int
	Count uint64 // values: Rows × Cols
	Size  uint64 // data bytes
}

// ReadNPYHeader reads the preamble and header of a .npy file from r,
// leaving r at the start of the data; off is where the data starts.
func ReadNPYHeader(r io.Reader) (h *NPYHeader, off int64, err error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, 0, fmt.Errorf("%w: short preamble: %v", ErrNPY, err)
	}
	if string(pre[:6]) != npyMagic {
		return nil, 0, fmt.Errorf("%w: not a .npy file (bad magic)", ErrNPY)
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, fmt.Errorf("%w: short header length: %v", ErrNPY, err)
		}
		hlen, off = int(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, fmt.Errorf("%w: short header length: %v", ErrNPY, err)
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > maxNPYHeader {
			return nil, 0, fmt.Errorf("%w: header of %d bytes is too large", ErrNPY, n)
		}
		hlen, off = int(n), 12
	default:
		return nil, 0, fmt.Errorf("%w: unsupported format version %d.%d", ErrNPY, pre[6], pre[7])
	}
	raw := make([]byte, hlen)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, 0, fmt.Errorf("%w: truncated header: %v", ErrNPY, err)
	}
	off += int64(hlen)
	if h, err = parseNPYHeader(string(raw)); err != nil {
		return nil, 0, err
	}
	var item uint64
	switch h.Dtype {
	case DtypeFloat32:
		item = 4
	case DtypeFloat16:
		item = 2
	case DtypeInt8, "<i1": // numpy writes '|i1'; accept the redundant '<i1'
		h.Dtype, item = DtypeInt8, 1
	default:
		if strings.HasPrefix(h.Dtype, ">") {
			return nil, 0, fmt.Errorf("%w: big-endian dtype %q is not supported", ErrNPY, h.Dtype)
		}
		return nil, 0, fmt.Errorf("%w: unsupported dtype %q (want %s, %s or %s)", ErrNPY, h.Dtype, DtypeFloat32, DtypeFloat16, DtypeInt8)
	}
	hi, count := bits.Mul64(uint64(h.Rows), uint64(h.Cols))
	hi2, size := bits.Mul64(count, item)
	if hi != 0 || hi2 != 0 || size > maxNPYBytes {
		return nil, 0, fmt.Errorf("%w: shape %v is too large", ErrNPY, h.Shape)
	}
	h.Count, h.Size = count, size
	return h, off, nil
}

// NPYLayout reads the header of the .npy file r (size bytes long) and
// returns it with the offset its data starts at, so the data can be read
// in place. The file must hold exactly the data the header describes.
func NPYLayout(r io.ReaderAt, size int64) (h *NPYHeader, off int64, err error) {
	if h, off, err = ReadNPYHeader(io.NewSectionReader(r, 0, size)); err != nil {
		return nil, 0, err
	}
	switch have := uint64(size - off); {
	case have < h.Size:
		return nil, 0, fmt.Errorf("%w: shape %v: truncated data: need %d bytes, found %d", ErrNPY, h.Shape, h.Size, have)
	case have > h.Size:
		return nil, 0, fmt.Errorf("%w: shape %v: trailing data after %d bytes", ErrNPY, h.Shape, h.Size)
	}
	return h, off, nil
}

// parseNPYHeader reads the Python dict literal of a .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
func parseNPYHeader(hdr string) (*NPYHeader, error) {
	bad := func(why string) error { return fmt.Errorf("%w: bad header %q: %s", ErrNPY, trimForError(hdr), why) }
	s := strings.TrimSpace(hdr)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, bad("not a dict")
	}
	s = s[1 : len(s)-1]
	a := &NPYHeader{}
	seen := map[string]bool{}
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			break
		}
		key, rest, ok := pyString(s)
		if !ok {
			return nil, bad("expected a quoted key")
		}
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, ":") {
			return nil, bad("expected ':' after " + key)
		}
		rest = strings.TrimLeft(rest[1:], " ")
		if seen[key] {
			return nil, bad("duplicate key " + key)
		}
		seen[key] = true
		switch key {
		case "descr":
			v, r2, ok := pyString(rest)
			if !ok {
				return nil, bad("descr is not a string")
			}
			a.Dtype, rest = v, r2
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "False"):
				rest = rest[5:]
			case strings.HasPrefix(rest, "True"):
				return nil, fmt.Errorf("%w: fortran_order True is not supported (write the array in C order)", ErrNPY)
			default:
				return nil, bad("fortran_order is not a bool")
			}
		case "shape":
			end := strings.IndexByte(rest, ')')
			if !strings.HasPrefix(rest, "(") || end < 0 {
				return nil, bad("shape is not a tuple")
			}
			for _, f := range strings.Split(rest[1:end], ",") {
				f = strings.TrimSpace(f)
				if f == "" {
					continue
				}
				n, err := strconv.ParseInt(strings.TrimSuffix(f, "L"), 10, 64)
				if err != nil || n < 0 || n > math.MaxInt32*int64(1<<16) {
					return nil, bad("shape entry " + f)
				}
				a.Shape = append(a.Shape, int(n))
			}
			rest = rest[end+1:]
		default:
			return nil, bad("unknown key " + key)
		}
		s = rest
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return nil, bad("missing descr, fortran_order or shape")
	}
	switch len(a.Shape) {
	case 1:
		a.Rows, a.Cols = a.Shape[0], 1
	case 2:
		a.Rows, a.Cols = a.Shape[0], a.Shape[1]
	default:
		return nil, fmt.Errorf("%w: %d-D array (shape %v), want 1-D or 2-D", ErrNPY, len(a.Shape), a.Shape)
	}
	return a, nil
}

// pyString reads a single- or double-quoted Python string without escapes.
func pyString(s string) (val, rest string, ok bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

func trimForError(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
