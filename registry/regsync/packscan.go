package regsync

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"io"
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/megagit/megagit/local"
)

// The pack of a source is read once before it is unpacked: each object's
// size comes from its header (a delta's from the delta's own header), so
// the size the pack unpacks to is known while no object is held whole.
// Each object is still inflated, into a hash or nowhere, to find where the
// next one begins; past the cap, that reading goes on for scanSlack more
// bytes (commits and trees may come after a large blob), to name the
// file that broke the cap.
const (
	scanSlack = 1 << 30
	keepTrees = 16 << 20 // the commits and trees held to name a file
)

// packSizes is what scanning a pack learnt.
type packSizes struct {
	total   int64 // what the objects read unpack to
	largest int64 // the largest object's size
	blobs   map[plumbing.Hash]int64
	kept    map[int64]keptObject // commits and trees, by offset
	byHash  map[plumbing.Hash]int64
	held    int64 // bytes in kept
	trees   *memory.Storage
}

type keptObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// scanPack reads the sizes of a pack's objects, stopping once they pass
// limit by scanSlack; blobs of limit/64 bytes or more are hashed (as they
// stream by) and the commits and trees are held, to name files.
func scanPack(pack io.Reader, limit int64) (*packSizes, error) {
	sc := packfile.NewScanner(pack)
	_, count, err := sc.Header()
	if err != nil {
		return nil, err
	}
	ps := &packSizes{blobs: map[plumbing.Hash]int64{}, kept: map[int64]keptObject{}, byHash: map[plumbing.Hash]int64{}, trees: memory.NewStorage()}
	var work int64 // bytes inflated
	for range count {
		oh, err := sc.NextObjectHeader()
		if err != nil {
			return nil, err
		}
		if work += oh.Length; work > limit+scanSlack {
			ps.add(oh.Length) // not read: a delta's own size for its size
			break
		}
		size, err := ps.read(sc, oh, limit)
		if err != nil {
			return nil, err
		}
		if ps.add(size); ps.total > limit+scanSlack {
			break
		}
	}
	return ps, nil
}

func (ps *packSizes) add(size int64) {
	ps.total += size
	if size > ps.largest {
		ps.largest = size
	}
}

// read reads the object whose header sc just read, keeping what naming
// needs; it returns the size the object unpacks to.
func (ps *packSizes) read(sc *packfile.Scanner, oh *packfile.ObjectHeader, limit int64) (int64, error) {
	switch oh.Type {
	case plumbing.CommitObject, plumbing.TreeObject:
		if ps.held+oh.Length > keepTrees {
			_, _, err := sc.NextObject(io.Discard)
			return oh.Length, err
		}
		var buf bytes.Buffer
		buf.Grow(int(oh.Length))
		if _, _, err := sc.NextObject(&buf); err != nil {
			return 0, err
		}
		return oh.Length, ps.keep(oh.Offset, oh.Type, buf.Bytes())
	case plumbing.BlobObject:
		if oh.Length < limit/64 {
			_, _, err := sc.NextObject(io.Discard)
			return oh.Length, err
		}
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", oh.Length)
		if _, _, err := sc.NextObject(h); err != nil {
			return 0, err
		}
		var sum plumbing.Hash
		copy(sum[:], h.Sum(nil))
		ps.blobs[sum] = oh.Length
		return oh.Length, nil
	case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
		at := oh.OffsetReference
		if oh.Type == plumbing.REFDeltaObject {
			at = ps.byHash[oh.Reference] // 0, no object's offset, when not held
		}
		base, ok := ps.kept[at]
		d := &deltaHead{keep: ok && ps.held+oh.Length <= keepTrees}
		if _, _, err := sc.NextObject(d); err != nil {
			return 0, err
		}
		target, err := d.target()
		if err != nil {
			return 0, err
		}
		// go-git holds a delta itself until it is applied: the larger
		// of the two counts.
		size := max(target, oh.Length)
		if d.keep && ps.held+target <= keepTrees {
			data, err := packfile.PatchDelta(base.data, d.buf.Bytes())
			if err != nil {
				return 0, err
			}
			return size, ps.keep(oh.Offset, base.typ, data)
		}
		return size, nil
	}
	_, _, err := sc.NextObject(io.Discard)
	return oh.Length, err
}

// keep holds a commit or a tree.
func (ps *packSizes) keep(offset int64, typ plumbing.ObjectType, data []byte) error {
	o := ps.trees.NewEncodedObject()
	o.SetType(typ)
	o.SetSize(int64(len(data)))
	w, err := o.Writer()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	h, err := ps.trees.SetEncodedObject(o)
	if err != nil {
		return err
	}
	ps.kept[offset] = keptObject{typ, data}
	ps.byHash[h] = offset
	ps.held += int64(len(data))
	return nil
}

// deltaHead reads a delta's header (the sizes of its base and of its
// target), and holds the whole delta when keep is set.
type deltaHead struct {
	keep bool
	head []byte
	buf  bytes.Buffer
}

func (d *deltaHead) Write(p []byte) (int, error) {
	if n := min(len(p), 20-len(d.head)); n > 0 {
		d.head = append(d.head, p[:n]...)
	}
	if d.keep {
		d.buf.Write(p)
	}
	return len(p), nil
}

// target is the size the delta's object unpacks to: its header's second
// number (little-endian, seven bits a byte).
func (d *deltaHead) target() (int64, error) {
	rest := d.head
	var size uint64
	for range 2 {
		size = 0
		for shift := 0; ; shift += 7 {
			if len(rest) == 0 || shift > 56 {
				return 0, fmt.Errorf("%w: a delta's header is malformed", packfile.ErrMalformedPackFile)
			}
			b := rest[0]
			rest = rest[1:]
			size |= uint64(b&0x7f) << shift
			if b&0x80 == 0 {
				break
			}
		}
	}
	return int64(size), nil
}

// blame names what broke a cap of limit: the largest file the held trees
// name (with the size it unpacks to), else the largest object's size.
func (ps *packSizes) blame(limit int64) string {
	var name string
	var size int64
	seen := map[plumbing.Hash]bool{}
	var walk func(dir string, h plumbing.Hash)
	walk = func(dir string, h plumbing.Hash) {
		if seen[h] {
			return
		}
		seen[h] = true
		t, err := object.GetTree(ps.trees, h)
		if err != nil {
			return
		}
		for _, e := range t.Entries {
			p := path.Join(dir, e.Name)
			if e.Mode == filemode.Dir {
				walk(p, e.Hash)
			} else if n, ok := ps.blobs[e.Hash]; ok && (n > size || n == size && p < name) {
				name, size = p, n
			}
		}
	}
	var commits []plumbing.Hash
	for h, off := range ps.byHash {
		if ps.kept[off].typ == plumbing.CommitObject {
			commits = append(commits, h)
		}
	}
	sort.Slice(commits, func(i, j int) bool { return bytes.Compare(commits[i][:], commits[j][:]) < 0 })
	for _, h := range commits {
		if c, err := object.GetCommit(ps.trees, h); err == nil {
			walk("", c.TreeHash)
		}
	}
	switch {
	case name != "" && size > limit:
		return fmt.Sprintf("%s alone is %s", name, local.Size(size))
	case name != "":
		return fmt.Sprintf("its largest file, %s, is %s", name, local.Size(size))
	}
	return "its largest object is " + local.Size(ps.largest)
}
