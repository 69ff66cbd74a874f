package staticmodel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/megagit/megagit/internal/numpytest"
)

func npyBytes(t testing.TB, rows, cols int, data any) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteNPY(&buf, rows, cols, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawNPY builds a file with an arbitrary header, for the rejection cases.
func rawNPY(major byte, dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{major, 0})
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(dict)))
	}
	b.WriteString(dict)
	b.Write(data)
	return b.Bytes()
}

func TestNPYRoundTrip(t *testing.T) {
	f32 := []float32{1, -2.5, 3.25, float32(math.Inf(1)), 0, -0.125}
	cases := []struct {
		name string
		data any
		get  func(*Array) any
	}{
		{"f4", f32, func(a *Array) any { return a.F32 }},
		{"f2", Float16s(f32), func(a *Array) any { return a.F16 }},
		{"i1", []int8{-128, -1, 0, 1, 64, 127}, func(a *Array) any { return a.I8 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := npyBytes(t, 2, 3, tc.data)
			a, err := ReadNPY(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if a.Rows != 2 || a.Cols != 3 || !reflect.DeepEqual(tc.get(a), tc.data) {
				t.Fatalf("got %+v", a)
			}
		})
	}
	if b := npyBytes(t, 2, 3, f32); (len(b)-24)%64 != 0 {
		t.Fatalf("data does not start on a 64-byte boundary (%d bytes)", len(b))
	}
	big := make([]float32, 3000*100) // several read chunks
	for i := range big {
		big[i] = float32(i)
	}
	if a, err := ReadNPY(iotest.HalfReader(bytes.NewReader(npyBytes(t, 3000, 100, big)))); err != nil || !reflect.DeepEqual(a.F32, big) {
		t.Fatalf("streamed read: %v", err)
	}
	if a, err := ReadNPY(bytes.NewReader(npyBytes(t, 0, 5, []float32{}))); err != nil || a.Rows != 0 || a.Cols != 5 {
		t.Fatalf("empty array: %+v %v", a, err)
	}
}

func TestNPYHeaderVariants(t *testing.T) {
	data := make([]byte, 8)
	binary.LittleEndian.PutUint32(data, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(data[4:], math.Float32bits(-1))
	for _, tc := range []struct {
		major byte
		dict  string
	}{
		{1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n"},
		{2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }   \n"},
		{3, `{"shape": (2, 1), "descr": "<f4", "fortran_order": False}` + "\n"},
	} {
		a, err := ReadNPY(bytes.NewReader(rawNPY(tc.major, tc.dict, data)))
		if err != nil {
			t.Fatalf("v%d %s: %v", tc.major, tc.dict, err)
		}
		if !reflect.DeepEqual(a.F32, []float32{1.5, -1}) {
			t.Fatalf("v%d: %v", tc.major, a.F32)
		}
	}
}

func TestNPYRejects(t *testing.T) {
	good := npyBytes(t, 2, 2, []float32{1, 2, 3, 4})
	f4 := func(shape string) string {
		return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }\n"
	}
	cases := map[string][]byte{
		"empty":         {},
		"bad magic":     append([]byte("\x93NUMPZ"), good[6:]...),
		"version 9":     append(append([]byte{}, good[:6]...), append([]byte{9, 0}, good[8:]...)...),
		"truncated":     good[:len(good)-3],
		"trailing":      append(append([]byte{}, good...), 0),
		"no header":     good[:12],
		"fortran":       rawNPY(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n", make([]byte, 4)),
		"big endian":    rawNPY(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n", make([]byte, 4)),
		"float64":       rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n", make([]byte, 8)),
		"3-D":           rawNPY(1, f4("(1, 1, 1)"), make([]byte, 4)),
		"0-D":           rawNPY(1, f4("()"), make([]byte, 4)),
		"negative":      rawNPY(1, f4("(-1, 4)"), make([]byte, 4)),
		"overflow":      rawNPY(1, f4("(4294967295, 4294967295)"), make([]byte, 4)),
		"huge":          rawNPY(1, f4("(100000000, 100000)"), make([]byte, 4)),
		"short data":    rawNPY(1, f4("(1000, 1000)"), make([]byte, 4)),
		"not a dict":    rawNPY(1, "descr\n", nil),
		"missing shape": rawNPY(1, "{'descr': '<f4', 'fortran_order': False}\n", nil),
		"unknown key":   rawNPY(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}\n", make([]byte, 4)),
		"duplicate key": rawNPY(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", make([]byte, 4)),
		"header large":  rawNPY(2, strings.Repeat(" ", 1<<16+1), nil),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			a, err := ReadNPY(bytes.NewReader(b))
			if err == nil || !errors.Is(err, ErrNPY) {
				t.Fatalf("want ErrNPY, got %+v, %v", a, err)
			}
			// A stream of unknown length takes the other read path.
			a, err = ReadNPY(iotest.OneByteReader(bytes.NewReader(b)))
			if err == nil || !errors.Is(err, ErrNPY) {
				t.Fatalf("stream: want ErrNPY, got %+v, %v", a, err)
			}
		})
	}
	if err := WriteNPY(&bytes.Buffer{}, 2, 2, []float32{1}); err == nil {
		t.Fatal("WriteNPY with wrong length: want error")
	}
	if err := WriteNPY(&bytes.Buffer{}, 1, 1, []float64{1}); err == nil {
		t.Fatal("WriteNPY float64: want error")
	}
}

func TestFloat16(t *testing.T) {
	cases := []struct {
		in   float32
		want Float16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, // rounds to Inf
		{1e-8, 0}, {5.960464477539063e-08, 0x0001}, // smallest subnormal
		{2.9802322387695312e-08, 0}, // exactly half the smallest: ties to even (0)
		{1 + 1.0/2048, 0x3c00},      // tie, even stays
		{1 + 3.0/2048, 0x3c02},      // tie, odd rounds up
		{float32(math.Inf(-1)), 0xfc00},
	}
	for _, tc := range cases {
		if got := ToFloat16(tc.in); got != tc.want {
			t.Errorf("ToFloat16(%g) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	if h := ToFloat16(float32(math.NaN())); !math.IsNaN(float64(h.Float32())) {
		t.Error("NaN lost")
	}
	// Every finite half round-trips exactly through float32.
	for h := 0; h < 1<<16; h++ {
		f := Float16(h).Float32()
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := ToFloat16(f); back != Float16(h) {
			t.Fatalf("%#04x -> %g -> %#04x", h, f, back)
		}
	}
}

func TestNPYNumpyInterop(t *testing.T) {
	py := numpytest.Python(t)
	dir := t.TempDir()
	// Go -> numpy.
	f32 := []float32{0.1, -2, 3.5, 1e-3, 65504, float32(math.Copysign(0, -1))}
	files := map[string]any{"f4.npy": f32, "f2.npy": Float16s(f32), "i1.npy": []int8{-128, -5, 0, 1, 2, 127}}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), npyBytes(t, 2, 3, data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `
import numpy as np, sys
d = sys.argv[1]
a = np.load(d + "/f4.npy"); assert a.dtype == np.float32 and a.shape == (2, 3), a
assert a.tolist() == np.array([0.1, -2, 3.5, 1e-3, 65504, -0.0], dtype=np.float32).reshape(2, 3).tolist()
b = np.load(d + "/f2.npy"); assert b.dtype == np.float16
assert (b == a.astype(np.float16)).all(), (b, a.astype(np.float16))
c = np.load(d + "/i1.npy"); assert c.dtype == np.int8 and c.tolist() == [[-128, -5, 0], [1, 2, 127]]
rng = np.random.default_rng(1)
x = rng.standard_normal((7, 5)).astype(np.float32)
np.save(d + "/np_f4.npy", x)
np.save(d + "/np_f2.npy", x.astype(np.float16))
np.save(d + "/np_i1.npy", (x * 40).astype(np.int8))
np.save(d + "/np_1d.npy", x[:, 0].copy())
np.save(d + "/np_fortran.npy", np.asfortranarray(x))
x.tofile(d + "/raw_f4.bin")
x.astype(np.float16).view(np.uint16).tofile(d + "/raw_f2.bin")
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	read := func(name string) (*Array, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return ReadNPY(f)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "raw_f4.bin"))
	want := make([]float32, len(raw)/4)
	for i := range want {
		want[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	a, err := read("np_f4.npy")
	if err != nil || a.Rows != 7 || a.Cols != 5 || !reflect.DeepEqual(a.F32, want) {
		t.Fatalf("np_f4: %+v %v", a, err)
	}
	raw16, _ := os.ReadFile(filepath.Join(dir, "raw_f2.bin"))
	a, err = read("np_f2.npy")
	if err != nil || a.Dtype != DtypeFloat16 {
		t.Fatalf("np_f2: %v", err)
	}
	for i, h := range a.F16 {
		if uint16(h) != binary.LittleEndian.Uint16(raw16[2*i:]) || ToFloat16(want[i]) != h {
			t.Fatalf("np_f2[%d] = %#04x, numpy rounding differs", i, h)
		}
	}
	if a, err := read("np_i1.npy"); err != nil || len(a.I8) != 35 {
		t.Fatalf("np_i1: %v", err)
	}
	if a, err := read("np_1d.npy"); err != nil || a.Rows != 7 || a.Cols != 1 || len(a.Shape) != 1 {
		t.Fatalf("np_1d: %+v %v", a, err)
	}
	if _, err := read("np_fortran.npy"); err == nil {
		t.Fatal("fortran order: want error")
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(npyBytes(f, 2, 2, []float32{1, 2, 3, 4}))
	f.Add(npyBytes(f, 1, 3, []int8{1, 2, 3}))
	f.Add(npyBytes(f, 3, 1, Float16s([]float32{1, 2, 3})))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ReadNPY(bytes.NewReader(b))
		if err != nil {
			return
		}
		n := a.Rows * a.Cols
		if len(a.F32)+len(a.F16)+len(a.I8) != n {
			t.Fatalf("shape %v but %d/%d/%d values", a.Shape, len(a.F32), len(a.F16), len(a.I8))
		}
		// Whatever parses must write back and parse to the same values.
		var data any
		switch a.Dtype {
		case DtypeFloat32:
			data = a.F32
		case DtypeFloat16:
			data = a.F16
		default:
			data = a.I8
		}
		var buf bytes.Buffer
		if err := WriteNPY(&buf, a.Rows, a.Cols, data); err != nil {
			t.Fatal(err)
		}
		b2, err := ReadNPY(&buf)
		if err != nil || len(b2.Float32()) != n {
			t.Fatalf("rewrite: %v", err)
		}
	})
}
