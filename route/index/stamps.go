package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/ranker"
	"golang.org/x/sys/unix"
)

// What the compiled index was built from, as its keys say: the quick
// stamp (a few stats), the stamp of every file the documents are read
// from, the roots those files are found under, and the ranker settings.

// quickStamp fingerprints what changes with most edits of a registry
// without a stat per skill: the skill roots' folders (a skill added,
// removed or renamed), the ledger folder, and git's HEAD, current branch
// ref (and the registry's own branch, in the ref layout) and index (a
// commit, a checkout, a merge). An edit in place of one
// SKILL.md is not in it: Refresh's full check sees that.
func quickStamp(root string, roots []string) string {
	paths := make([]string, 0, len(roots)+6)
	for _, r := range roots {
		if strings.HasPrefix(r, checkMark) {
			continue
		}
		dir, _ := rootDir(root, r)
		paths = append(paths, dir)
	}
	paths = append(paths, filepath.Join(root, filepath.FromSlash(local.LedgerDir)))
	gitDir := filepath.Join(root, ".git")
	if b, err := os.ReadFile(gitDir); err == nil { // a worktree's .git file
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(root, d)
			}
			gitDir = d
		}
	}
	// Branches and packed-refs live in the shared git folder, which a
	// linked worktree's commondir file names.
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil && strings.TrimSpace(string(b)) != "" {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	head, _ := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	paths = append(paths, filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "index"), filepath.Join(common, "packed-refs"))
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && !strings.Contains(ref, "..") {
		paths = append(paths, filepath.Join(common, filepath.FromSlash(ref)))
	}
	// A registry kept on its own branch beside a project's: that branch.
	if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(local.RefFile))); err == nil {
		if ref := strings.TrimSpace(string(b)); strings.HasPrefix(ref, "refs/heads/") && !strings.Contains(ref, "..") {
			paths = append(paths, filepath.Join(common, filepath.FromSlash(ref)))
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "roots %s\nhead %s\n", strings.Join(roots, ":"), head)
	for i, st := range StatAll(paths) {
		fmt.Fprintf(h, "%s %s\n", paths[i], st)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RankerKey fingerprints the ranker settings an index snapshot depends on
// (all of them, to stay safe as the ranker grows).
func RankerKey(rc ranker.Config) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d %#v", ranker.SnapshotVersion, rc)))
	return hex.EncodeToString(sum[:])
}

// SkillsKey fingerprints what the documents are built from: the stamp of
// every SKILL.md under the roots (folders of the registry at root) and of
// every ledger file (see fileStamps).
func SkillsKey(root string, roots []string) (string, error) {
	fs, err := fileStamps(root, roots)
	if err != nil {
		return "", err
	}
	return keyOf(roots, fs), nil
}

// keyOf is SkillsKey of stamps taken under roots.
func keyOf(roots []string, fs []FileStamp) string {
	h := sha256.New()
	buf := fmt.Appendf(make([]byte, 0, 32<<10), "roots %s\n", strings.Join(roots, ":"))
	for _, f := range fs {
		buf = f.Stamp.append(append(append(buf, f.Path...), 0)) // no name holds a NUL
		if len(buf) > 16<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// FileStamp is one file the documents are built from, by its path
// relative to the registry, and its stamp.
type FileStamp struct {
	Path  string
	Stamp Stamp
}

// fileStamps stats every SKILL.md under the roots and every ledger file,
// in a fixed order. A file edited in place changes only its own stamp (not
// its folder's), so there is one stat per file; they are relative to the
// folder (a short path walk for the kernel) and run on a few goroutines,
// as at thousands of skills they are most of a full check's system time.
func fileStamps(root string, roots []string) ([]FileStamp, error) {
	var out []FileStamp
	add := func(r, file string) error {
		dir, rel := rootDir(root, r)
		if strings.HasPrefix(r, ledgerMark) {
			file = ""
		}
		d, err := os.Open(dir)
		if errors.Is(err, os.ErrNotExist) || err != nil && filepath.IsAbs(rel) {
			return nil // a folder outside the registry that cannot be read holds no skill megagit reads
		}
		if err != nil {
			return err
		}
		defer d.Close()
		names, err := d.Readdirnames(-1)
		if err != nil {
			return err
		}
		slices.Sort(names)
		stamps := statAt(int(d.Fd()), names, file)
		for i, name := range names {
			if st := stamps[i]; st.ok {
				out = append(out, FileStamp{Path: rel + "/" + name + file, Stamp: st})
			}
		}
		return nil
	}
	for _, r := range roots {
		f, ok := strings.CutPrefix(r, fileMark)
		if !ok {
			f, ok = strings.CutPrefix(r, checkMark)
		}
		if ok {
			if st := StatAll([]string{f})[0]; st.ok {
				out = append(out, FileStamp{Path: f, Stamp: st})
			}
			continue
		}
		if err := add(r, "/SKILL.md"); err != nil {
			return nil, err
		}
		// Codex's policy beside a SKILL.md decides whether it is routed.
		if err := add(r, "/agents/openai.yaml"); err != nil {
			return nil, err
		}
	}
	if err := add(local.LedgerDir, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// LedgerRoot names, among the roots Refresh, Open and SkillsKey take, a
// folder of ledger files outside the registry (absolute), whose every
// file the documents depend on. Any other absolute root is a folder of
// skills outside the registry (<dir>/<name>/SKILL.md); a relative one is
// a folder of skills in it.
func LedgerRoot(dir string) string { return ledgerMark + dir }

const ledgerMark = "ledger:"

// FileRoot names, among the roots, one file the documents depend on (an
// agent's settings file that turns skills off, the record of Claude
// Code's installed plugins), absolute.
func FileRoot(file string) string { return fileMark + file }

const fileMark = "file:"

// CheckRoot is a FileRoot that only the full check (fileStamps) stats, not
// the quick stamp, which the prompt hook takes on every prompt: a file whose
// edit in place the hook's background check after the prompt finds soon
// enough (an installed skill's files, of which there may be many).
func CheckRoot(file string) string { return checkMark + file }

const checkMark = "check:"

// RootDir is where a root (see LedgerRoot, FileRoot) is on disk, and
// whether it is a folder of ledgers or a file rather than a folder of
// skills.
func RootDir(root, r string) (dir string, notSkills bool) {
	dir, _ = rootDir(root, r)
	return dir, strings.HasPrefix(r, ledgerMark) || strings.HasPrefix(r, fileMark) || strings.HasPrefix(r, checkMark)
}

// rootDir is where a root is on disk, and how its files are named in the
// stamps: a relative root by its registry-relative path, an absolute one
// or a ledger root by its absolute path.
func rootDir(root, r string) (dir, name string) {
	if d, ok := strings.CutPrefix(r, ledgerMark); ok {
		return d, d
	}
	if f, ok := strings.CutPrefix(r, fileMark); ok {
		return f, f
	}
	if f, ok := strings.CutPrefix(r, checkMark); ok {
		return f, f
	}
	if filepath.IsAbs(r) {
		return r, r
	}
	return filepath.Join(root, filepath.FromSlash(r)), r
}

// Stamp is what a stat says about a file's content without reading it;
// ok is false when it could not be stat'ed (a skill folder without
// SKILL.md). The change time and inode catch what size and modification
// time miss: an edit that keeps the size and puts the modification time
// back (the change time cannot be set), or another file moved in.
type Stamp struct {
	size, mtime, ctime int64
	ino                uint64
	ok                 bool
}

func stampOf(st *unix.Stat_t) Stamp {
	return Stamp{
		size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
		ino: st.Ino, ok: true,
	}
}

func (s Stamp) append(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(s.size))
	b = le.AppendUint64(b, uint64(s.mtime))
	b = le.AppendUint64(b, uint64(s.ctime))
	return le.AppendUint64(b, s.ino)
}

// StatAll stats paths, in order.
func StatAll(paths []string) []Stamp {
	out := make([]Stamp, len(paths))
	for i, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil {
			out[i] = stampOf(&st)
		}
	}
	return out
}

// statAt stats name+suffix for every name, relative to the directory dirfd,
// on up to one goroutine per core.
func statAt(dirfd int, names []string, suffix string) []Stamp {
	out := make([]Stamp, len(names))
	run := func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if unix.Fstatat(dirfd, names[i]+suffix, &st, 0) == nil {
				out[i] = stampOf(&st)
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(names)/256+1)
	var wg sync.WaitGroup
	per := (len(names) + workers - 1) / workers
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func(lo int) {
			defer wg.Done()
			run(lo, min(lo+per, len(names)))
		}(w * per)
	}
	run(0, min(per, len(names)))
	wg.Wait()
	return out
}

// String is the stamp in a form that can be stored and compared: "-" for
// a file that could not be stat'ed.
func (s Stamp) String() string {
	if !s.ok {
		return "-"
	}
	return fmt.Sprintf("%d.%d.%d.%d", s.size, s.mtime, s.ctime, s.ino)
}
