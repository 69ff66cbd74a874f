package staticmodel

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"unsafe"
)

// Float16 holds IEEE 754 half-precision bits: how the embedding cache halves
// its size on request.
type Float16 uint16

// Array is a 1-D or 2-D C-order array read from a .npy file; exactly one of
// F32, F16, I8 is set, according to Dtype. A 1-D array has Cols == 1.
type Array struct {
	Dtype string
	Shape []int
	Rows  int
	Cols  int
	F32   []float32
	F16   []Float16
	I8    []int8
}

// Float32 returns the data as float32 whatever the stored dtype, so callers
// need not care how a file was written.
func (a *Array) Float32() []float32 {
	switch a.Dtype {
	case DtypeFloat32:
		return a.F32
	case DtypeFloat16:
		out := make([]float32, len(a.F16))
		for i, h := range a.F16 {
			out[i] = h.Float32()
		}
		return out
	default:
		out := make([]float32, len(a.I8))
		for i, v := range a.I8 {
			out[i] = float32(v)
		}
		return out
	}
}

// WriteNPY writes a rows×cols array as .npy v1.0; data is []float32,
// []Float16 or []int8 of length rows*cols.
func WriteNPY(w io.Writer, rows, cols int, data any) error {
	var dtype string
	var n int
	switch d := data.(type) {
	case []float32:
		dtype, n = DtypeFloat32, len(d)
	case []Float16:
		dtype, n = DtypeFloat16, len(d)
	case []int8:
		dtype, n = DtypeInt8, len(d)
	default:
		return fmt.Errorf("%w: cannot write %T", ErrNPY, data)
	}
	if rows < 0 || cols < 0 || rows*cols != n || (cols != 0 && n/cols != rows) {
		return fmt.Errorf("%w: shape (%d, %d) does not match %d values", ErrNPY, rows, cols, n)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }", dtype, rows, cols)
	// Pad so the data starts on a 64-byte boundary, as numpy does.
	total := len(npyMagic) + 4 + len(dict) + 1
	pad := (64 - total%64) % 64
	if len(dict)+pad+1 > math.MaxUint16 {
		return fmt.Errorf("%w: header too long", ErrNPY)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(npyMagic)
	bw.Write([]byte{1, 0})
	binary.Write(bw, binary.LittleEndian, uint16(len(dict)+pad+1))
	bw.WriteString(dict)
	bw.WriteString(strings.Repeat(" ", pad))
	bw.WriteByte('\n')
	var buf [4]byte
	switch d := data.(type) {
	case []float32:
		for _, v := range d {
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
			bw.Write(buf[:4])
		}
	case []Float16:
		for _, v := range d {
			binary.LittleEndian.PutUint16(buf[:], uint16(v))
			bw.Write(buf[:2])
		}
	case []int8:
		for _, v := range d {
			bw.WriteByte(byte(v))
		}
	}
	return bw.Flush()
}

// ReadNPY reads a .npy file (format 1.0, 2.0 or 3.0) holding a 1-D or 2-D
// little-endian float32, float16 or int8 C-order array. It never trusts the
// header for allocation: memory follows the bytes actually read.
func ReadNPY(r io.Reader) (*Array, error) {
	h, _, err := ReadNPYHeader(r)
	if err != nil {
		return nil, err
	}
	a := &Array{Dtype: h.Dtype, Shape: h.Shape, Rows: h.Rows, Cols: h.Cols}
	count := h.Count
	raw, err := readNPYData(r, h.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: shape %v: %v", ErrNPY, a.Shape, err)
	}
	switch a.Dtype {
	case DtypeFloat32:
		a.F32 = make([]float32, count)
		for i := range a.F32 {
			a.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case DtypeFloat16:
		a.F16 = make([]Float16, count)
		for i := range a.F16 {
			a.F16[i] = Float16(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	default:
		if count > 0 { // same size and alignment: reuse the bytes
			a.I8 = unsafe.Slice((*int8)(unsafe.Pointer(&raw[0])), count)
		} else {
			a.I8 = []int8{}
		}
	}
	return a, nil
}

// readNPYData reads exactly need bytes and checks nothing follows. Memory
// grows with the bytes actually read, never with what the header claims.
func readNPYData(r io.Reader, need uint64) ([]byte, error) {
	if lr, ok := r.(interface{ Len() int }); ok { // bytes.Reader & co: size known
		if have := uint64(lr.Len()); have != need {
			if have < need {
				return nil, fmt.Errorf("truncated data: need %d bytes, found %d", need, have)
			}
			return nil, fmt.Errorf("trailing data after %d bytes", need)
		}
		buf := make([]byte, need)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("reading data: %v", err)
		}
		return buf, nil
	}
	buf := make([]byte, 0, min(need, 1<<20))
	for uint64(len(buf)) < need {
		if len(buf) == cap(buf) {
			buf = append(buf[:cap(buf)], make([]byte, min(need-uint64(len(buf)), uint64(cap(buf))))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(uint64(cap(buf)), need)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return nil, fmt.Errorf("truncated data: need %d bytes, found %d", need, len(buf))
		} else if err != nil {
			return nil, fmt.Errorf("reading data: %v", err)
		}
	}
	var one [1]byte
	if n, _ := io.ReadFull(r, one[:]); n > 0 {
		return nil, fmt.Errorf("trailing data after %d bytes", need)
	}
	return buf, nil
}

// ToFloat16 rounds v to the nearest half-precision value (ties to even);
// out-of-range values become ±Inf, NaN stays NaN.
func ToFloat16(v float32) Float16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff { // Inf or NaN
		if man != 0 {
			return Float16(sign | 0x7e00)
		}
		return Float16(sign | 0x7c00)
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return Float16(sign | 0x7c00)
	}
	if e <= 0 { // subnormal half (or zero)
		if e < -10 {
			return Float16(sign)
		}
		man |= 0x800000 // implicit leading bit
		shift := uint(14 - e)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return Float16(sign | uint16(h))
	}
	h := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, up to Inf: still correct
	}
	return Float16(sign | uint16(h))
}

// Float32 widens a half-precision value exactly.
func (h Float16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: normalise the mantissa.
		e := uint32(127 - 15 + 1)
		for man&0x400 == 0 {
			man <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (man&0x3ff)<<13)
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
	}
}

// Float16s converts a slice to half precision, for a float16 cache file.
func Float16s(v []float32) []Float16 {
	out := make([]Float16, len(v))
	for i, x := range v {
		out[i] = ToFloat16(x)
	}
	return out
}
