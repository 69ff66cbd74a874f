package regsync

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
)

// TestFetchCap: a source that unpacks to more than the cap is refused
// while it is fetched, naming the source and the cap; one within it is
// fetched whole (the objects written through the capped writer read back).
func TestFetchCap(t *testing.T) {
	dir, commit := gitRepo(t)
	commit(map[string]string{"skills/a/SKILL.md": strings.ReplaceAll(skillMD, "%s", "a"), "skills/a/big.txt": strings.Repeat("x", 3<<20)})
	old := fetchCap
	t.Cleanup(func() { fetchCap = old })

	fetchCap = 1 << 20
	_, err := FetchSource(context.Background(), dir, "")
	if !errors.Is(err, local.ErrTooLarge) || !errors.Is(err, errkind.ErrInvalid) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "1 MiB") {
		t.Fatalf("fetch of a 3 MiB source under a 1 MiB cap: %v, want a refusal naming the source and the cap", err)
	}

	fetchCap = 8 << 20
	src, err := FetchSource(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := src.Files("skills/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files["big.txt"]) != 3<<20 || !strings.Contains(string(files["SKILL.md"]), "name: a") {
		t.Fatalf("files read back: big.txt %d bytes, SKILL.md %q", len(files["big.txt"]), files["SKILL.md"])
	}
}

// allocated is how many bytes f allocated (no test of the package runs in
// parallel).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestFetchRefusesBombUnread: a source holding a blob of 48 MiB of zeros
// (a pack of a few KiB) under an 8 MiB cap is refused from the sizes its
// pack declares, before the blob is inflated into memory, and the refusal
// names the source, the file and the cap.
func TestFetchRefusesBombUnread(t *testing.T) {
	dir, commit := gitRepo(t)
	commit(map[string]string{"skills/a/SKILL.md": strings.ReplaceAll(skillMD, "%s", "a"), "other/zeros.bin": strings.Repeat("\x00", 48<<20)})
	old := fetchCap
	t.Cleanup(func() { fetchCap = old })
	fetchCap = 8 << 20
	var err error
	n := allocated(func() { _, err = FetchSource(context.Background(), dir, "") })
	if !errors.Is(err, local.ErrTooLarge) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "8 MiB") || !strings.Contains(err.Error(), "other/zeros.bin") {
		t.Errorf("fetch of a 48 MiB blob under an 8 MiB cap: %v, want a refusal naming the source, the file and the cap", err)
	}
	if n > 16<<20 {
		t.Errorf("the refused fetch allocated %d MiB, want less than 16 MiB (the blob is 48 MiB)", n>>20)
	}
}

// pack builds a pack of objects (each its header's type, its size, what
// follows the header — a delta's base offset — and its content).
func pack(t *testing.T, objects ...packObj) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("PACK")
	_ = binary.Write(&b, binary.BigEndian, [2]uint32{2, uint32(len(objects))})
	for _, o := range objects {
		size := len(o.data)
		c := byte(o.typ<<4) | byte(size&15)
		for size >>= 4; size > 0; size >>= 7 {
			b.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
		}
		b.WriteByte(c)
		b.Write(o.extra)
		z := zlib.NewWriter(&b)
		if _, err := z.Write(o.data); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

type packObj struct {
	typ   plumbing.ObjectType
	extra []byte
	data  []byte
}

// copyDelta is a delta making of a base of 64 KiB a target of n times
// it: one copy instruction (offset 0, 64 KiB) for each.
func copyDelta(n int) []byte {
	leb := func(b []byte, v int) []byte {
		for ; v >= 0x80; v >>= 7 {
			b = append(b, byte(v)|0x80)
		}
		return append(b, byte(v))
	}
	d := leb(leb(nil, 64<<10), n*64<<10)
	return append(d, bytes.Repeat([]byte{0x80}, n)...)
}

// TestDeltaBombUnread: a delta of a few KiB that makes a 256 MiB blob of
// a 64 KiB one is refused from its header, before go-git applies it; a
// small one is unpacked.
func TestDeltaBombUnread(t *testing.T) {
	base := packObj{typ: plumbing.BlobObject, data: make([]byte, 64<<10)}
	const at = 12 // the base's offset: right after the pack's header
	delta := func(n int) packObj {
		p := pack(t, base) // where the delta begins: after the base
		return packObj{typ: plumbing.OFSDeltaObject, extra: []byte{byte(len(p) - 20 - at)}, data: copyDelta(n)}
	}
	st := newBoundedStorage(8 << 20)
	var err error
	n := allocated(func() { err = packfile.UpdateObjectStorage(st, bytes.NewReader(pack(t, base, delta(4096)))) })
	if !errors.Is(err, local.ErrTooLarge) || !strings.Contains(err.Error(), "8 MiB") {
		t.Fatalf("a delta to 256 MiB under an 8 MiB cap: %v, want a refusal naming the cap", err)
	}
	if n > 32<<20 {
		t.Errorf("the refused delta allocated %d MiB, want less than 32 MiB (it makes 256 MiB)", n>>20)
	}

	st = newBoundedStorage(8 << 20)
	if err := packfile.UpdateObjectStorage(st, bytes.NewReader(pack(t, base, delta(2)))); err != nil {
		t.Fatalf("a delta to 128 KiB under an 8 MiB cap: %v", err)
	}
	want := plumbing.ComputeHash(plumbing.BlobObject, make([]byte, 128<<10))
	o, err := st.EncodedObject(plumbing.BlobObject, want)
	if err != nil || o.Size() != 128<<10 {
		t.Fatalf("the delta's blob: %v", err)
	}
}
