package regsync

import (
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
)

// maxFetchObjects bounds what one fetch of a skill source unpacks into
// memory (every object of the commit fetched, and of its history for an
// update), so a source far larger than any skill is refused while it
// arrives, not after it filled the machine's memory.
const maxFetchObjects = 256 << 20

// fetchCap is the cap FetchSource applies (a test lowers it).
var fetchCap int64 = maxFetchObjects

// boundedStorage is the memory storage a source is fetched into, refusing
// objects past max in all. go-git parses a fetched pack into a storage
// object by object, each held whole in memory before the storage sees it
// (a blob that inflates to gigabytes would be), unless the storage takes
// the pack itself (PackfileWriter): this one does, reads every object's
// size from the pack before any object is unpacked (packscan.go), and
// only then has go-git parse it.
type boundedStorage struct {
	*memory.Storage
	stored, max int64
	refused     error // the first refusal, which go-git's error may not keep
}

func newBoundedStorage(max int64) *boundedStorage {
	return &boundedStorage{Storage: memory.NewStorage(), max: max}
}

// refuse is the refusal of a source over the cap, why naming what broke
// it.
func (s *boundedStorage) refuse(why string) error {
	if s.refused == nil {
		s.refused = fmt.Errorf("%w (%w): the source unpacks to more than %s, the cap for a skill source (%s)", errkind.ErrInvalid, local.ErrTooLarge, local.Size(s.max), why)
	}
	return s.refused
}

func (s *boundedStorage) admit(size int64) error {
	if size < 0 || s.stored+size > s.max {
		return s.refuse("an object of " + local.Size(size))
	}
	s.stored += size
	return nil
}

// SetEncodedObject stores an object that passes the cap.
func (s *boundedStorage) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	if err := s.admit(o.Size()); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.Storage.SetEncodedObject(o)
}

// PackfileWriter takes a fetched pack as it arrives (compressed; a pack
// of more than max bytes is refused as it arrives), and unpacks it when
// closed if the sizes its objects declare pass the cap.
func (s *boundedStorage) PackfileWriter() (io.WriteCloser, error) {
	return &packWriter{s: s}, nil
}

type packWriter struct {
	s      *boundedStorage
	pack   spool
	failed bool
}

func (w *packWriter) Write(p []byte) (int, error) {
	if w.pack.size+int64(len(p)) > w.s.max-w.s.stored {
		w.failed = true
		return 0, w.s.refuse("its pack alone is over " + local.Size(w.s.max))
	}
	w.pack.write(p)
	return len(p), nil
}

// Close unpacks the pack into the storage, unless it is over the cap.
func (w *packWriter) Close() error {
	if w.failed || w.pack.size == 0 {
		return nil
	}
	sizes, err := scanPack(&spoolReader{s: &w.pack}, w.s.max-w.s.stored)
	if err != nil {
		return err
	}
	if w.s.stored+sizes.total > w.s.max {
		return w.s.refuse(sizes.blame(w.s.max))
	}
	// Read once more, as it streamed in: go-git holds no more of it than
	// its deltas, and each chunk read is let go, so the pack and its
	// objects are not both held whole.
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(&spoolReader{s: &w.pack, drop: true}), w.s)
	if err != nil {
		return err
	}
	_, err = p.Parse()
	return err
}

// spoolChunk is the size of a spool's chunks.
const spoolChunk = 1 << 20

// spool is a fetched pack held in chunks (a buffer that doubled as it
// grew would hold up to twice the pack).
type spool struct {
	chunks [][]byte
	size   int64
}

func (s *spool) write(p []byte) {
	s.size += int64(len(p))
	for len(p) > 0 {
		if len(s.chunks) == 0 || len(s.chunks[len(s.chunks)-1]) == spoolChunk {
			s.chunks = append(s.chunks, make([]byte, 0, spoolChunk))
		}
		last := &s.chunks[len(s.chunks)-1]
		n := min(len(p), spoolChunk-len(*last))
		*last = append(*last, p[:n]...)
		p = p[n:]
	}
}

// spoolReader reads a spool from its start; with drop, each chunk read
// is let go.
type spoolReader struct {
	s      *spool
	i, off int
	drop   bool
}

func (r *spoolReader) Read(p []byte) (int, error) {
	for r.i < len(r.s.chunks) {
		if c := r.s.chunks[r.i]; r.off < len(c) {
			n := copy(p, c[r.off:])
			r.off += n
			return n, nil
		}
		if r.drop {
			r.s.chunks[r.i] = nil
		}
		r.i, r.off = r.i+1, 0
	}
	return 0, io.EOF
}
