package embedcache

import (
	"bytes"
	"embed"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"strings"
)

// int8Rows is a quantised token table read in place: row r is the dim int8
// values at vecOff+r·dim of vec, its scale the little-endian float32 at
// scaleOff+4r of scales. Over the embedded model files nothing is copied
// when the model opens: a prompt reads only the rows of its own tokens out
// of the binary's read-only data, so the hook no longer pays for 7.8 MB of
// fresh pages on every call.
type int8Rows struct {
	vec, scales      io.ReaderAt
	vecOff, scaleOff int64
	rows, dim        int
}

// read fetches row r's int8 values into q (len dim) and returns its scale.
// The sources are in memory and their sizes were checked when the model
// loaded, so a failed read (never expected) reports ok = false.
func (t *int8Rows) read(r int, q, sb []byte) (scale float32, ok bool) {
	if _, err := t.vec.ReadAt(q, t.vecOff+int64(r)*int64(t.dim)); err != nil {
		return 0, false
	}
	if _, err := t.scales.ReadAt(sb[:4], t.scaleOff+4*int64(r)); err != nil {
		return 0, false
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(sb)), true
}

// add adds row r, dequantised, to sum; buf is dim+4 bytes of scratch. The
// products are the ones DequantizeRows makes (int8 × scale in float32), so
// pooling gives exactly what a materialised table gives.
func (t *int8Rows) add(sum []float32, r int, buf []byte) bool {
	q := buf[:t.dim]
	s, ok := t.read(r, q, buf[t.dim:])
	if !ok {
		return false
	}
	for j, v := range q {
		sum[j] += float32(int8(v)) * s
	}
	return true
}

// table materialises the float32 table (rows × dim), as DequantizeRows
// would: only training and adapt need it.
func (t *int8Rows) table() []float32 {
	out := make([]float32, t.rows*t.dim)
	buf := make([]byte, t.dim+4)
	q := buf[:t.dim]
	for r := range t.rows {
		s, ok := t.read(r, q, buf[t.dim:])
		if !ok {
			continue
		}
		row := out[r*t.dim : (r+1)*t.dim]
		for j, v := range q {
			row[j] = float32(int8(v)) * s
		}
	}
	return out
}

// checkScales rejects negative, NaN or infinite scales, reading them in
// chunks so no copy of the whole column is made.
func (t *int8Rows) checkScales() error {
	var buf [4096]byte
	for r := 0; r < t.rows; {
		n := min(t.rows-r, len(buf)/4)
		if _, err := t.scales.ReadAt(buf[:4*n], t.scaleOff+4*int64(r)); err != nil {
			return fmt.Errorf("row %d: %v", r, err)
		}
		for i := range n {
			s := math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
			if s < 0 || math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
				return fmt.Errorf("row %d has scale %g", r+i, s)
			}
		}
		r += n
	}
	return nil
}

// openInPlace returns a file of fsys to read from in place, and its size.
// Files compiled into the binary (embed.FS) are already in memory and are
// read where they lie; any other file is read once into memory.
func openInPlace(fsys fs.FS, name string) (io.ReaderAt, int64, error) {
	if _, ok := fsys.(embed.FS); ok {
		f, err := fsys.Open(name)
		if err != nil {
			return nil, 0, err
		}
		st, err := f.Stat()
		if ra, ok := f.(io.ReaderAt); ok && err == nil && st.Mode().IsRegular() {
			return ra, st.Size(), nil // an embedded file holds no resource: no Close needed
		}
		f.Close()
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, 0, err
	}
	return bytes.NewReader(b), int64(len(b)), nil
}

// npyLayout reads the header of the .npy file r (size bytes long): the
// array's dtype and shape (no data) and the offset its data starts at. The
// file must hold exactly the data the header describes, as ReadNPY checks.
func npyLayout(r io.ReaderAt, size int64) (a *Array, off int64, err error) {
	var pre [12]byte
	if n, _ := r.ReadAt(pre[:], 0); n < 10 {
		return nil, 0, fmt.Errorf("%w: short preamble", ErrNPY)
	}
	if string(pre[:6]) != npyMagic {
		return nil, 0, fmt.Errorf("%w: not a .npy file (bad magic)", ErrNPY)
	}
	var hlen int64
	switch pre[6] {
	case 1:
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:])), 10
	case 2, 3:
		hlen, off = int64(binary.LittleEndian.Uint32(pre[8:])), 12
		if hlen > maxNPYHeader {
			return nil, 0, fmt.Errorf("%w: header of %d bytes is too large", ErrNPY, hlen)
		}
	default:
		return nil, 0, fmt.Errorf("%w: unsupported format version %d.%d", ErrNPY, pre[6], pre[7])
	}
	if off+hlen > size {
		return nil, 0, fmt.Errorf("%w: truncated header", ErrNPY)
	}
	hdr := make([]byte, hlen)
	if _, err := r.ReadAt(hdr, off); err != nil {
		return nil, 0, fmt.Errorf("%w: truncated header: %v", ErrNPY, err)
	}
	off += hlen
	if a, err = parseNPYHeader(string(hdr)); err != nil {
		return nil, 0, err
	}
	var item uint64
	switch a.Dtype {
	case DtypeFloat32:
		item = 4
	case DtypeFloat16:
		item = 2
	case DtypeInt8, "<i1":
		a.Dtype, item = DtypeInt8, 1
	default:
		if strings.HasPrefix(a.Dtype, ">") {
			return nil, 0, fmt.Errorf("%w: big-endian dtype %q is not supported", ErrNPY, a.Dtype)
		}
		return nil, 0, fmt.Errorf("%w: unsupported dtype %q", ErrNPY, a.Dtype)
	}
	hi, count := bits.Mul64(uint64(a.Rows), uint64(a.Cols))
	hi2, need := bits.Mul64(count, item)
	if hi != 0 || hi2 != 0 || need > maxNPYBytes {
		return nil, 0, fmt.Errorf("%w: shape %v is too large", ErrNPY, a.Shape)
	}
	switch have := uint64(size - off); {
	case have < need:
		return nil, 0, fmt.Errorf("%w: shape %v: truncated data: need %d bytes, found %d", ErrNPY, a.Shape, need, have)
	case have > need:
		return nil, 0, fmt.Errorf("%w: shape %v: trailing data after %d bytes", ErrNPY, a.Shape, need)
	}
	return a, off, nil
}
