package ranker

import (
	"errors"
	"reflect"
	"testing"
	"unsafe"
)

// roundTrip passes a snapshot through its binary form, as the prompt hook
// stores it, starting at offset shift of an 8-aligned buffer: 0 shares
// the tables with the buffer, 4 makes the float64 table misaligned and
// so copied.
func roundTrip(t testing.TB, s *Snapshot, shift int) *Snapshot {
	t.Helper()
	b, err := s.AppendBinary(make([]byte, shift, 1<<10))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]uint64, (len(b)+7)/8) // 8-aligned
	data := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(b))
	copy(data, b)
	out, err := DecodeSnapshot(data[shift:])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotBinaryRoundTrip checks the binary form keeps every table.
func TestSnapshotBinaryRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Fields.Headings.B = 0.33
	cfg.Fields.Body = Field{Weight: 0.4, B: 0.6}
	s := NewIndex(evidenceDocs(), cfg).Snapshot()
	for _, shift := range []int{0, 4} {
		if got := roundTrip(t, s, shift); !reflect.DeepEqual(got, s) {
			t.Fatalf("shift %d: round trip differs\nwant %+v\ngot  %+v", shift, s, got)
		}
	}
}

// TestDecodeSnapshotDamaged checks a truncated or altered binary form is
// refused or restores an index that ranks without panicking, never a panic.
func TestDecodeSnapshotDamaged(t *testing.T) {
	docs := evidenceDocs()
	form, err := NewIndex(docs, DefaultConfig()).Snapshot().AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	try := func(data []byte) {
		s, err := DecodeSnapshot(data)
		if err != nil {
			if !errors.Is(err, ErrSnapshotMismatch) {
				t.Fatalf("err = %v, want ErrSnapshotMismatch", err)
			}
			return
		}
		if ix, err := NewIndexFromSnapshot(docs, DefaultConfig(), s); err == nil {
			ix.Rank("pull invoice totals from a pdf kubernetes", Options{})
		}
	}
	for n := 0; n < len(form); n++ {
		try(form[:n])
	}
	for i := 0; i < len(form); i++ {
		for _, v := range []byte{0, 1, 0x7f, 0xff} {
			b := append([]byte(nil), form...)
			b[i] = v
			try(b)
		}
	}
}

// FuzzDecodeSnapshot feeds arbitrary bytes through decoding, restoring
// and ranking: a damaged compiled index must never crash the hook.
func FuzzDecodeSnapshot(f *testing.F) {
	docs := evidenceDocs()
	form, err := NewIndex(docs, DefaultConfig()).Snapshot().AppendBinary(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(form)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSnapshot(data)
		if err != nil {
			return
		}
		if ix, err := NewIndexFromSnapshot(docs, DefaultConfig(), s); err == nil {
			ix.Rank("pull invoice totals from a pdf", Options{Dense: []float64{0.1, 0.9, 0.3, 0, 0.5, 0.7}})
		}
	})
}
