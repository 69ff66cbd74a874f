package staticmodel

import (
	"bytes"
	"embed"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"math"
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
// products are the ones models.DequantizeRows makes (int8 × scale in float32), so
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

// table materialises the float32 table (rows × dim), as models.DequantizeRows
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
