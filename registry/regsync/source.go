package regsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/gitnet"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/skillslock"
	"github.com/megagit/megagit/skillfile"
)

// The caps of what an install or an update reads from its sources: every
// file is held in memory until the one commit (as a blob, then a git
// object), so a source of large binaries is refused clearly, before any
// of it is read, instead of exhausting the machine's memory.
const (
	maxSourceFile   = 32 << 20 // one file of a skill
	maxSkillBytes   = 32 << 20 // the files of one skill
	maxSkillFiles   = 1000
	maxInstallBytes = 64 << 20 // the files of every skill of one install or update
	maxInstallFiles = 5000
)

// Budget is what one install or update may still read from its sources
// (Files takes from it).
type Budget struct {
	files int
	bytes int64
}

// NewBudget is the budget of one install or update.
func NewBudget() *Budget { return &Budget{files: maxInstallFiles, bytes: maxInstallBytes} }

// Take takes the files of skill folder dir of src, read already, from the
// budget (an update reads every skill's files to compare them, and writes
// only some).
func (b *Budget) Take(src *Source, dir string, files map[string][]byte) error {
	var size int64
	for _, data := range files {
		size += int64(len(data))
	}
	return b.take(fmt.Sprintf("skill folder %s in %s (commit %s)", dir, gitauth.Redact(src.URL), src.Commit.String()[:12]), len(files), size)
}

func (b *Budget) take(where string, files int, size int64) error {
	if b.files -= files; b.files < 0 {
		return fmt.Errorf("%w (%w): with %s, the skills to write hold more than %d files, the cap for one install or update; install or update fewer at a time", errkind.ErrInvalid, local.ErrTooLarge, where, maxInstallFiles)
	}
	if b.bytes -= size; b.bytes < 0 {
		return fmt.Errorf("%w (%w): with %s, the skills to write hold more than %s, the cap for one install or update; install or update fewer at a time", errkind.ErrInvalid, local.ErrTooLarge, where, local.Size(maxInstallBytes))
	}
	return nil
}

// Source is a git repository skills are installed from, fetched into
// memory (never into the registry, never onto disk) at one commit.
type Source struct {
	URL string // where it is, as stored: secrets stripped, a local path absolute
	Ref string // the ref asked for ("" for the default branch)
	// RefKind is what Ref named: skillslock.RefBranch, RefTag or RefCommit.
	RefKind string
	Commit  plumbing.Hash // the commit Ref resolved to
	Time    time.Time     // its committer time
	tree    *object.Tree
	repo    *git.Repository
}

// FoundSkill is one folder of a Source holding a SKILL.md.
type FoundSkill struct {
	Name        string `json:"name"`        // its folder's name (for the top, its SKILL.md's name:)
	Path        string `json:"path"`        // the folder in the source, "." for the top
	Description string `json:"description"` // its SKILL.md's, "" when it does not parse
}

// SourceURL tells a source's URL from a local path: a URL (https, ssh,
// git@host:path, file://) is fetched as given and stored with its secrets
// stripped; a path is made absolute and must exist, except OWNER/REPO
// with no such folder here, which is GitHub's https URL.
func SourceURL(source string) (fetch, stored string, err error) {
	if strings.TrimSpace(source) == "" {
		return "", "", fmt.Errorf("%w: an empty source", errkind.ErrInvalid)
	}
	ep, err := transport.NewEndpoint(source)
	if err != nil {
		return "", "", fmt.Errorf("%w: source %q: %v", errkind.ErrInvalid, gitauth.Redact(source), err)
	}
	if ep.Protocol != "file" || strings.HasPrefix(source, "file://") {
		return source, gitauth.Strip(source), nil
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(abs); err != nil {
		if gitHubShorthand.MatchString(source) {
			u := "https://github.com/" + strings.TrimSuffix(source, ".git") + ".git"
			return u, u, nil
		}
		return "", "", fmt.Errorf("%w: source %s: no such repository (give a git URL, OWNER/REPO of GitHub, or the path of a local repository)", errkind.ErrInvalid, source)
	}
	return abs, abs, nil
}

// gitHubShorthand is OWNER/REPO, which names a GitHub repository when no
// local folder has that path (as other skill installers read it).
var gitHubShorthand = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// FetchSource fetches one commit of a source into memory: ref names a
// branch, a tag or a commit ("" for the source's default branch).
// Credentials come from gitauth; an error names the source without its
// secrets.
func FetchSource(ctx context.Context, source, ref string) (*Source, error) {
	return fetchSource(ctx, source, ref, false)
}

// FetchSourceHistory is FetchSource with the history of the ref's commit,
// so Descends can tell an upstream that moved on from one that was
// rewritten.
func FetchSourceHistory(ctx context.Context, source, ref string) (*Source, error) {
	return fetchSource(ctx, source, ref, true)
}

func fetchSource(ctx context.Context, source, ref string, history bool) (*Source, error) {
	fetchURL, stored, err := SourceURL(source)
	if err != nil {
		return nil, err
	}
	fail := func(what string, err error) error {
		return fmt.Errorf("%s %s: %w", what, gitauth.Redact(stored), redactErr(err))
	}
	creds, err := gitauth.Lookup("", fetchURL)
	if err != nil {
		return nil, fail("credentials for", err)
	}
	st := newBoundedStorage(fetchCap)
	repo, err := git.Init(st, nil)
	if err != nil {
		return nil, err
	}
	rem, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{fetchURL}})
	if err != nil {
		return nil, err
	}
	w := gitnet.Begin()
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: creds.Auth})
	if err = creds.Done(w.Err(err)); err != nil {
		switch {
		case errors.Is(err, transport.ErrEmptyRemoteRepository):
			return nil, fmt.Errorf("%w: %s is an empty repository: no skills to install", errkind.ErrInvalid, gitauth.Redact(stored))
		case errors.Is(err, gitnet.ErrAdvertisementTooLarge):
			return nil, fail("skill source", err)
		}
		return nil, fail("cannot reach skill source", err)
	}
	name, ok := pickRef(refs, ref)
	var specs []config.RefSpec
	depth := 1
	if history {
		depth = 0
	}
	switch {
	case ok:
		specs = []config.RefSpec{config.RefSpec("+" + name.String() + ":" + name.String())}
	case isHexPrefix(ref):
		// A commit: fetch every branch and tag, then look for it.
		specs = []config.RefSpec{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}
		depth = 0
	case ref == "":
		return nil, fmt.Errorf("%w: %s has no branches", errkind.ErrInvalid, gitauth.Redact(stored))
	default:
		return nil, fmt.Errorf("%w: %s has no branch, tag or commit %q", registry.ErrNotFound, gitauth.Redact(stored), ref)
	}
	w = gitnet.Begin()
	err = w.Err(rem.FetchContext(ctx, &git.FetchOptions{RefSpecs: specs, Auth: creds.Auth, Depth: depth, Tags: git.NoTags}))
	if err != nil && st.refused != nil {
		return nil, fmt.Errorf("fetch skills from %s: %w; nothing was installed", gitauth.Redact(stored), st.refused)
	}
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, fail("fetch skills from", err)
	}
	var commit *object.Commit
	if ok {
		commit, err = peel(repo, name)
	} else {
		commit, err = findCommit(repo, ref)
		if errors.Is(err, registry.ErrNotFound) {
			err = fmt.Errorf("%w: %s has no branch, tag or commit %q", registry.ErrNotFound, gitauth.Redact(stored), ref)
		}
	}
	if err != nil {
		return nil, err
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, err
	}
	kind := skillslock.RefCommit
	switch {
	case ok && name.IsTag():
		kind = skillslock.RefTag
	case ok:
		kind = skillslock.RefBranch
	}
	return &Source{URL: stored, Ref: ref, RefKind: kind, Commit: commit.Hash, Time: commit.Committer.When.UTC(), tree: tree, repo: repo}, nil
}

// Descends reports whether the source's commit is from, or a descendant of
// it (false for a commit the fetched history does not hold: the ref was
// force-pushed, or points into another history now). It needs the history
// (FetchSourceHistory).
func (s *Source) Descends(from string) (bool, error) {
	h := plumbing.NewHash(from)
	if h == s.Commit {
		return true, nil
	}
	old, err := s.repo.CommitObject(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	now, err := s.repo.CommitObject(s.Commit)
	if err != nil {
		return false, err
	}
	return old.IsAncestor(now)
}

// pickRef is the advertised ref a ref names: "" the remote's HEAD (else
// main, master, the first branch), else a branch, a tag or a full ref name.
func pickRef(refs []*plumbing.Reference, ref string) (plumbing.ReferenceName, bool) {
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	var branches []string
	for _, r := range refs {
		byName[r.Name()] = r
		if r.Name().IsBranch() {
			branches = append(branches, r.Name().String())
		}
	}
	if ref == "HEAD" {
		ref = "" // the source's default branch, as git reads it
	}
	if ref != "" {
		for _, n := range []plumbing.ReferenceName{plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref), plumbing.ReferenceName(ref)} {
			if r, ok := byName[n]; ok && (n.IsBranch() || n.IsTag()) {
				return r.Name(), true
			}
		}
		return "", false
	}
	if head, ok := byName[plumbing.HEAD]; ok {
		if head.Type() == plumbing.SymbolicReference {
			if _, ok := byName[head.Target()]; ok {
				return head.Target(), true
			}
		}
		sort.Strings(branches)
		for _, b := range branches {
			if byName[plumbing.ReferenceName(b)].Hash() == head.Hash() {
				return plumbing.ReferenceName(b), true
			}
		}
	}
	if len(branches) == 0 {
		return "", false
	}
	sort.Strings(branches)
	for _, want := range []string{"refs/heads/main", "refs/heads/master"} {
		if _, ok := byName[plumbing.ReferenceName(want)]; ok {
			return plumbing.ReferenceName(want), true
		}
	}
	return plumbing.ReferenceName(branches[0]), true
}

// peel is the commit a fetched ref points to, through an annotated tag.
func peel(repo *git.Repository, name plumbing.ReferenceName) (*object.Commit, error) {
	r, err := repo.Storer.Reference(name)
	if err != nil {
		return nil, err
	}
	h := r.Hash()
	for range 8 {
		tag, err := repo.TagObject(h)
		if err != nil {
			break
		}
		h = tag.Target
	}
	return repo.CommitObject(h)
}

// findCommit finds a fetched commit by its hash or a prefix of it.
func findCommit(repo *git.Repository, prefix string) (*object.Commit, error) {
	prefix = strings.ToLower(prefix)
	if len(prefix) == 40 {
		c, err := repo.CommitObject(plumbing.NewHash(prefix))
		if err != nil {
			return nil, registry.ErrNotFound
		}
		return c, nil
	}
	iter, err := repo.CommitObjects()
	if err != nil {
		return nil, err
	}
	var found []*object.Commit
	err = iter.ForEach(func(c *object.Commit) error {
		if strings.HasPrefix(c.Hash.String(), prefix) {
			found = append(found, c)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(found) == 0:
		return nil, registry.ErrNotFound
	case len(found) > 1:
		return nil, fmt.Errorf("%w: commit %q is ambiguous: give more of its hash", errkind.ErrInvalid, prefix)
	}
	return found[0], nil
}

func isHexPrefix(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// Skills lists the source's skills: every folder holding a SKILL.md, under
// one of within when given (folders in the source; "." is the top), sorted
// by path. None is an error saying where it looked.
//
// The walk lists the names git refuses to check out too (a control
// character, .git in any spelling): a file so named in one skill's folder
// refuses that skill when its files are read (Files), naming it, and
// leaves the others alone.
func (s *Source) Skills(within []string) ([]FoundSkill, error) {
	var out []FoundSkill
	w := object.NewTreeWalker(s.tree, true, nil)
	defer w.Close()
	w.SkipPathValidation()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s at %s: %v", errkind.ErrInvalid, gitauth.Redact(s.URL), s.Commit.String()[:12], err)
		}
		if path.Base(name) != "SKILL.md" || e.Mode != filemode.Regular && e.Mode != filemode.Executable {
			continue
		}
		dir := path.Dir(name)
		if !under(dir, within) {
			continue
		}
		fs := FoundSkill{Name: path.Base(dir), Path: dir}
		if blob, err := s.repo.BlobObject(e.Hash); err == nil && blob.Size <= skillfile.MaxSize {
			if data, err := readBlob(blob); err == nil {
				if sf, err := skillfile.Parse(name, data); err == nil {
					fs.Description = sf.Description()
					if dir == "." {
						fs.Name = sf.Name()
					}
				}
			}
		}
		if fs.Name == "." || fs.Name == "" {
			fs.Name = CloneDir(s.URL)
		}
		out = append(out, fs)
	}
	if len(out) == 0 {
		where := "anywhere in it"
		if len(within) > 0 {
			where = "under " + strings.Join(within, ", ")
		}
		return nil, fmt.Errorf("%w: no SKILL.md in %s at %s (looked %s, for a SKILL.md in a folder of the repository)",
			registry.ErrNotFound, gitauth.Redact(s.URL), s.Commit.String()[:12], where)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// under reports whether dir is one of within or inside one (all of them
// when within is empty).
func under(dir string, within []string) bool {
	if len(within) == 0 {
		return true
	}
	for _, w := range within {
		if w == "." || dir == w || strings.HasPrefix(dir, w+"/") {
			return true
		}
	}
	return false
}

// CleanSourcePath is a --path as Skills compares it: slash form, no leading
// or trailing slash, "." for the top.
func CleanSourcePath(p string) string {
	p = strings.Trim(path.Clean("/"+filepath.ToSlash(p)), "/")
	if p == "" {
		return "."
	}
	return p
}

// Files reads every file of a skill folder of the source, by path inside
// it, and which of them are executable (an installed script keeps its
// executable bit). A symlink or a submodule is refused: a skill is plain
// files. The folder's files are counted and sized first: over a cap (of a
// file, of the skill, or of what budget has left; nil: the skill's caps
// only) nothing of it is read.
func (s *Source) Files(dir string, budget *Budget) (files map[string][]byte, exec map[string]bool, err error) {
	t, err := s.folder(dir)
	if err != nil {
		return nil, nil, err
	}
	where := func() string {
		return fmt.Sprintf("skill folder %s in %s (commit %s)", dir, gitauth.Redact(s.URL), s.Commit.String()[:12])
	}
	type entry struct {
		name string
		blob *object.Blob
		exec bool
	}
	var entries []entry
	var size int64
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s holds a file git refuses to check out (%v: a control character, or .git in some spelling); megagit installs none of that skill",
				errkind.ErrInvalid, where(), err)
		}
		switch e.Mode {
		case filemode.Dir:
			continue
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
		default:
			return nil, nil, fmt.Errorf("%w: %s in %s is a symlink or a submodule; a skill installs plain files only",
				errkind.ErrInvalid, path.Join(dir, name), gitauth.Redact(s.URL))
		}
		blob, err := s.repo.BlobObject(e.Hash)
		if err != nil {
			return nil, nil, err
		}
		if blob.Size > maxSourceFile {
			return nil, nil, fmt.Errorf("%w (%w): %s in %s is %s, over the cap of %s for one file of a skill", errkind.ErrInvalid, local.ErrTooLarge,
				path.Join(dir, name), gitauth.Redact(s.URL), local.Size(blob.Size), local.Size(maxSourceFile))
		}
		entries = append(entries, entry{name, blob, e.Mode == filemode.Executable})
		size += blob.Size
		switch {
		case len(entries) > maxSkillFiles:
			return nil, nil, fmt.Errorf("%w (%w): %s holds more than %d files, the cap for one skill; megagit installs none of it", errkind.ErrInvalid, local.ErrTooLarge, where(), maxSkillFiles)
		case size > maxSkillBytes:
			return nil, nil, fmt.Errorf("%w (%w): %s holds more than %s, the cap for one skill's files; megagit installs none of it", errkind.ErrInvalid, local.ErrTooLarge, where(), local.Size(maxSkillBytes))
		}
	}
	if budget != nil {
		if err := budget.take(where(), len(entries), size); err != nil {
			return nil, nil, err
		}
	}
	out, exec := make(map[string][]byte, len(entries)), map[string]bool{}
	for _, e := range entries {
		data, err := readBlob(e.blob)
		if err != nil {
			return nil, nil, err
		}
		out[e.name] = data
		if e.exec {
			exec[e.name] = true
		}
	}
	return out, exec, nil
}

func readBlob(blob *object.Blob) ([]byte, error) {
	rd, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// folder is the tree of folder dir of the source ("." for its top).
func (s *Source) folder(dir string) (*object.Tree, error) {
	if dir == "." {
		return s.tree, nil
	}
	sub, err := s.tree.Tree(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: no folder %s in %s at %s", registry.ErrNotFound, dir, gitauth.Redact(s.URL), s.Commit.String()[:12])
	}
	return sub, nil
}
