package gitstore

import (
	"errors"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Hash names a git object.
type Hash = plumbing.Hash

// RefName is a full ref name (refs/heads/main, HEAD).
type RefName = plumbing.ReferenceName

// Mode is a tree entry's git mode.
type Mode = filemode.FileMode

// The modes megagit writes and reads.
const (
	Dir        = filemode.Dir
	Regular    = filemode.Regular
	Executable = filemode.Executable
	Symlink    = filemode.Symlink
	Submodule  = filemode.Submodule
	Deprecated = filemode.Deprecated
)

// ZeroHash is no object: an unborn branch, an empty side of a merge.
var ZeroHash = plumbing.ZeroHash

// HEAD is the work tree's current ref.
const HEAD = plumbing.HEAD

// ErrNoRef is returned for a ref that does not exist.
var ErrNoRef = plumbing.ErrReferenceNotFound

// ErrNoRepository is returned by Open outside any git repository.
var ErrNoRepository = errors.New("not inside a git repository")

// NewHash parses a full hex hash (zero when s is not one).
func NewHash(s string) Hash { return plumbing.NewHash(s) }

// IsHash reports whether s is a full hex hash.
func IsHash(s string) bool { return plumbing.IsHash(s) }

// BranchRef is refs/heads/name.
func BranchRef(name string) RefName { return plumbing.NewBranchReferenceName(name) }

// RemoteRef is refs/remotes/remote/name.
func RemoteRef(remote, name string) RefName { return plumbing.NewRemoteReferenceName(remote, name) }

// BlobHash is the hash git gives a blob of data.
func BlobHash(data []byte) Hash { return plumbing.ComputeHash(plumbing.BlobObject, data) }

// ExecMode is the mode of a file whose executable bit is exec.
func ExecMode(exec bool) Mode {
	if exec {
		return Executable
	}
	return Regular
}

// Entry is one entry of a tree.
type Entry struct {
	Name string
	Mode Mode
	Hash Hash
}

// Signature is a commit's author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit object as megagit reads and writes it.
type Commit struct {
	Hash      Hash // set when read; ignored by WriteCommit
	Tree      Hash
	Parents   []Hash
	Author    Signature
	Committer Signature
	Message   string
}

// RemoteHEADRef is refs/remotes/remote/HEAD, the remote's default branch.
func RemoteHEADRef(remote string) RefName { return plumbing.NewRemoteHEADReferenceName(remote) }
