package regsync

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"

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
// objects past max in all. go-git's pack parser asks a storage that has a
// LazyWriter for each object's type and size before it writes the
// object's content, so an object that would pass the cap (a blob that
// inflates to gigabytes) is refused before any of it is unpacked.
type boundedStorage struct {
	*memory.Storage
	stored, max int64
	refused     error // the first refusal, which go-git's error may not keep
}

func newBoundedStorage(max int64) *boundedStorage {
	return &boundedStorage{Storage: memory.NewStorage(), max: max}
}

func (s *boundedStorage) admit(size int64) error {
	if size < 0 || s.stored+size > s.max {
		if s.refused == nil {
			s.refused = fmt.Errorf("%w (%w): the source unpacks to more than %s, the cap for a skill source", local.ErrInvalid, local.ErrTooLarge, local.Size(s.max))
		}
		return s.refused
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

// LazyWriter is the writer go-git's pack parser writes an object through,
// once its header passed the cap.
func (s *boundedStorage) LazyWriter() (io.WriteCloser, func(plumbing.ObjectType, int64) error, error) {
	o := &lazyObject{s: s}
	return o, o.header, nil
}

type lazyObject struct {
	s   *boundedStorage
	obj *sizedObject
}

func (o *lazyObject) header(t plumbing.ObjectType, size int64) error {
	if err := o.s.admit(size); err != nil {
		return err
	}
	o.obj = &sizedObject{typ: t, data: make([]byte, 0, size)}
	return nil
}

func (o *lazyObject) Write(p []byte) (int, error) {
	switch {
	case o.obj == nil:
		return 0, errors.New("pack object written before its header")
	case len(p) > cap(o.obj.data)-len(o.obj.data):
		return 0, errors.New("pack object larger than its header says")
	}
	o.obj.data = append(o.obj.data, p...)
	return len(p), nil
}

// Close stores the object written (its bytes were admitted with its
// header).
func (o *lazyObject) Close() error {
	if o.obj == nil {
		return nil
	}
	obj := o.obj
	o.obj = nil
	_, err := o.s.Storage.SetEncodedObject(obj)
	return err
}

// sizedObject is an object held in memory in a buffer of the size its
// header announced (go-git's MemoryObject grows by appending, up to twice
// the memory).
type sizedObject struct {
	typ  plumbing.ObjectType
	data []byte
	hash plumbing.Hash
}

func (o *sizedObject) Hash() plumbing.Hash {
	if o.hash.IsZero() {
		o.hash = plumbing.ComputeHash(o.typ, o.data)
	}
	return o.hash
}

func (o *sizedObject) Type() plumbing.ObjectType     { return o.typ }
func (o *sizedObject) SetType(t plumbing.ObjectType) { o.typ = t }
func (o *sizedObject) Size() int64                   { return int64(len(o.data)) }
func (o *sizedObject) SetSize(int64)                 {}
func (o *sizedObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *sizedObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("a fetched object is read-only")
}
