// Package gitstore is the registry's git repository: opening and creating
// one, its objects (blobs, trees, commits), its refs, its index and the
// parts of its config megagit reads. It is the one package of the registry
// that calls go-git's object, plumbing and storage APIs; the registry
// reads and writes the repository only through a Store.
//
// Hash, RefName and Mode are go-git's own types under the store's names,
// so hashes pass unconverted between the store and the network code that
// fetches and pushes (registry/regsync, gitnet). Every write of a ref, the
// index or the config goes through git's own lock file and a rename
// (see lock.go), so a process killed at any point leaves the old file or the
// new one, and plain git running at the same moment sees one of the two.
package gitstore
