package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/route/index"
	"golang.org/x/sys/unix"
)

// A server watches what its router is built from (the config file, the
// skill roots, every skill folder and SKILL.md, the ledger folder) with
// inotify, so a request re-checks the registry (a stat per SKILL.md) only
// after something changed. An event that the kernel has queued but this
// process has not read yet must not be missed: a request first creates a
// marker file in the watched .megagit/local/ and waits for its event.
// inotify queues one instance's events in order, so once the marker's
// event is read every change made before the request has been seen.
// Without inotify (other systems, or no watch to spare) every request
// re-checks the registry, as before.

// newServeWatcher makes the watcher; tests replace it to force the fallback.
var newServeWatcher = fsnotify.NewWatcher

const (
	barrierPrefix  = "serve.barrier."
	barrierTimeout = 100 * time.Millisecond
	// maxTouched bounds the paths remembered for the next sync; past it
	// every watch is renewed.
	maxTouched = 4096
)

// serveWatch says whether anything a server's router is built from may
// have changed since its last full check.
type serveWatch struct {
	w           *fsnotify.Watcher
	root        string // the registry folder
	meta, local string // .megagit and .megagit/local
	done        chan struct{}

	// Request side, used under server.mu only.
	seq     uint64              // last barrier made
	watched map[string]bool     // paths watched
	want    map[string]bool     // paths to watch, as of the last sync
	fixed   []string            // see sync
	kids    map[string][]string // each root's folders and SKILL.md files

	mu      sync.Mutex
	dirty   bool
	all     bool            // renew every watch at the next sync
	touched map[string]bool // paths created, removed, renamed or chmod'ed since the last sync
	reached uint64          // last barrier seen
	wake    chan struct{}
}

// startWatch watches the registry for changes, or leaves s.watch nil (and
// says why on stderr when it tried) so every request re-checks it.
func (s *server) startWatch() {
	if runtime.GOOS != "linux" { // the barrier relies on inotify's ordering
		return
	}
	fw, err := newServeWatcher()
	if err != nil {
		s.unwatch(err)
		return
	}
	w := &serveWatch{
		w: fw, root: s.root, meta: filepath.Join(s.root, local.MetaDir), local: s.env.LocalDir,
		done: make(chan struct{}), watched: map[string]bool{}, touched: map[string]bool{},
		dirty: true, wake: make(chan struct{}, 1),
	}
	go w.run()
	s.watch = w
	if _, err := w.sync(s.env.Roots); err != nil {
		s.unwatch(err)
	}
}

// unwatch falls back to checking the registry on every request.
func (s *server) unwatch(err error) {
	fmt.Fprintf(s.opts.Log, "megagit: warning: cannot watch %s for changes (%v); checking it on every request\n", s.root, err)
	s.stopWatch()
}

func (s *server) stopWatch() {
	if s.watch != nil {
		s.watch.w.Close()
		<-s.watch.done
		s.watch = nil
	}
}

// run records the watcher's events until it is closed.
func (w *serveWatch) run() {
	defer close(w.done)
	defer w.markDirty(true)
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			w.event(ev)
		case _, ok := <-w.w.Errors:
			if !ok {
				return
			}
			w.markDirty(true) // a lost event (queue overflow): renew everything
		}
	}
}

func (w *serveWatch) event(ev fsnotify.Event) {
	dir := filepath.Dir(ev.Name)
	if dir == w.local && filepath.Base(ev.Name) != config.FileName { // nothing the router is built from but this machine's config, and the barrier
		digits, ok := strings.CutPrefix(filepath.Base(ev.Name), barrierPrefix)
		if n, err := strconv.ParseUint(digits, 10, 64); ok && err == nil && ev.Has(fsnotify.Create) {
			w.mu.Lock()
			w.reached = max(w.reached, n)
			w.mu.Unlock()
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dirty = true
	if ev.Op == fsnotify.Write || w.all { // a write keeps every path's file
		return
	}
	if len(w.touched) >= maxTouched {
		w.all, w.touched = true, map[string]bool{}
		return
	}
	w.touched[ev.Name], w.touched[dir] = true, true
}

func (w *serveWatch) markDirty(all bool) {
	w.mu.Lock()
	w.dirty = true
	w.all = w.all || all
	w.mu.Unlock()
}

// fresh reports that nothing changed since the last full check, having
// seen every event queued before it was called. Otherwise it clears the
// dirty mark: the caller checks in full, and later changes mark it again.
func (w *serveWatch) fresh() bool {
	w.seq++
	if w.barrier(w.seq) != nil {
		w.take()
		return false
	}
	t := time.NewTimer(barrierTimeout)
	defer t.Stop()
	for {
		w.mu.Lock()
		seen := w.reached >= w.seq
		w.mu.Unlock()
		if seen {
			return !w.take()
		}
		select {
		case <-w.wake:
		case <-t.C:
			w.take()
			return false
		}
	}
}

// take clears the dirty mark and reports whether it was set.
func (w *serveWatch) take() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirty := w.dirty
	w.dirty = false
	return dirty
}

// barrier creates and removes the marker file for request n.
func (w *serveWatch) barrier(n uint64) error {
	p := filepath.Join(w.local, barrierPrefix+strconv.FormatUint(n, 10))
	fd, err := unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err == unix.EEXIST { // left by a killed server
		_ = unix.Unlink(p)
		fd, err = unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	}
	if err != nil {
		return err
	}
	unix.Close(fd)
	return unix.Unlink(p)
}

// sync watches what the router is built from under roots: the config
// file and its folder, the local folder (for the barrier), the ledger
// folder, each root, and every folder in a root with its SKILL.md (a file
// watch follows a symlinked SKILL.md to its target). A folder that does
// not exist yet is watched through its nearest existing parent. A root is
// listed again only when its entries changed, and paths touched since the
// last sync are watched anew (they may be other files now), so a sync
// after an edit costs a few stats. It reports whether it removed or added
// a watch; a failure other than a path that just vanished is an error.
func (w *serveWatch) sync(roots []string) (renewed bool, err error) {
	w.mu.Lock()
	touched, all := w.touched, w.all
	w.touched, w.all = map[string]bool{}, false
	w.mu.Unlock()

	// The folders (and the config file) watched besides the roots' entries.
	fixed := []string{w.meta, w.local, filepath.Join(w.meta, config.FileName)}
	// nearest watches dir or its nearest existing parent, and reports
	// whether dir itself exists.
	nearest := func(dir string) bool {
		for p := dir; ; p = filepath.Dir(p) {
			if isDir(p) {
				fixed = append(fixed, p)
				return p == dir
			}
			if p == w.root || p == filepath.Dir(p) {
				return false
			}
		}
	}
	nearest(filepath.Join(w.root, filepath.FromSlash(local.LedgerDir)))
	rebuild := all || w.want == nil
	kids := map[string][]string{}
	for _, r := range roots {
		dir, ledgers := index.RootDir(w.root, r)
		if !nearest(dir) || ledgers {
			continue
		}
		list, ok := w.kids[dir]
		if !ok || all || touched[dir] {
			if list, err = skillFolders(dir); errors.Is(err, fs.ErrNotExist) {
				w.markDirty(false) // removed since its stat: look again
			} else if err != nil {
				return false, err
			}
			rebuild = true
		}
		kids[dir] = list
	}
	candidates := touched
	if rebuild || !slices.Equal(fixed, w.fixed) {
		w.want = map[string]bool{}
		for _, p := range fixed {
			w.want[p] = true
		}
		for _, list := range kids {
			for _, p := range list {
				w.want[p] = true
			}
		}
		for p := range w.watched {
			if !w.want[p] || all {
				_ = w.w.Remove(p) // a watch the kernel dropped is no error
				delete(w.watched, p)
				renewed = true
			}
		}
		candidates = w.want
	}
	w.fixed, w.kids = fixed, kids
	for p := range candidates {
		if touched[p] && w.watched[p] {
			_ = w.w.Remove(p)
			delete(w.watched, p)
			renewed = true
		}
		if !w.want[p] || w.watched[p] {
			continue
		}
		switch err := w.w.Add(p); {
		case err == nil:
			w.watched[p], renewed = true, true
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			// Not there (yet): its folder's watch reports its arrival,
			// unless the folder is one of the fixed ones, just removed.
			if p != fixed[2] && slices.Contains(fixed, p) {
				w.markDirty(false)
			}
		default:
			return renewed, fmt.Errorf("watch %s: %w", p, err)
		}
	}
	return renewed, nil
}

// skillFolders lists the folders in a root and their SKILL.md files.
func skillFolders(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ent := range ents {
		p := filepath.Join(dir, ent.Name())
		if ent.IsDir() || ent.Type()&fs.ModeSymlink != 0 && isDir(p) {
			out = append(out, p, filepath.Join(p, "SKILL.md"))
		}
	}
	return out, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
