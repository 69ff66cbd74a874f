package regsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/gitnet"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
)

// CloneDir is the folder `megagit clone URL` uses when none is given: the
// last path element of the URL without ".git", like git clone.
func CloneDir(rawURL string) string {
	ep, err := transport.NewEndpoint(rawURL)
	p := rawURL
	if err == nil {
		p = ep.Path
	}
	base := path.Base(strings.TrimRight(filepath.ToSlash(p), "/"))
	base = strings.TrimSuffix(base, ".git")
	if base == "" || base == "." || base == "/" {
		return "registry"
	}
	return base
}

// Clone clones a shared registry into dir with go-git and opens it. A
// repository without .megagit/ is removed again and reported, so a wrong
// URL leaves nothing behind. The per-machine folder .megagit/local/ is
// created; a registry whose .gitignore does not ignore it gets a warning.
func Clone(ctx context.Context, rawURL, dir string, opts registry.Options) (*registry.Registry, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(abs); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%w: %s is not empty", registry.ErrExists, abs)
	}
	// The clone's origin is read from the clone, not from here: a local
	// path is stored absolute, as git does.
	if rawURL, err = absoluteLocal(rawURL); err != nil {
		return nil, err
	}
	creds, err := gitauth.Lookup("", rawURL)
	if err != nil {
		return nil, err
	}
	auth := creds.Auth
	_, statErr := os.Stat(abs)
	created := errors.Is(statErr, os.ErrNotExist)
	cleanup := func() {
		if created {
			os.RemoveAll(abs)
		} else {
			ents, _ := os.ReadDir(abs)
			for _, e := range ents {
				os.RemoveAll(filepath.Join(abs, e.Name()))
			}
		}
	}
	w := gitnet.Begin()
	_, err = git.PlainCloneContext(ctx, abs, false, &git.CloneOptions{URL: rawURL, Auth: auth})
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		// The remote's HEAD names a branch it does not have (a bare repo
		// made with another default branch): take main, master or the first.
		if branch, ok := pickBranch(ctx, rawURL, auth); ok {
			cleanup()
			_, err = git.PlainCloneContext(ctx, abs, false, &git.CloneOptions{URL: rawURL, Auth: auth, ReferenceName: branch, SingleBranch: false})
		}
	}
	err = creds.Done(w.Err(err))
	if err != nil {
		cleanup()
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return nil, fmt.Errorf("%w: %s is an empty repository; create the registry with `megagit init`, `megagit remote add origin %s` and `megagit sync`", local.ErrNotRegistry, rawURL, rawURL)
		}
		return nil, fmt.Errorf("clone %s: %w", gitauth.Redact(rawURL), redactErr(err))
	}
	if st, err := os.Stat(filepath.Join(abs, local.MetaDir)); err != nil || !st.IsDir() {
		projectRegistry := false
		if repo, err := git.PlainOpen(abs); err == nil {
			_, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", registry.RefBranch.Short()), false)
			projectRegistry = err == nil
		}
		cleanup()
		if projectRegistry {
			return nil, fmt.Errorf("%w: %s is a project whose registry is on its own branch %s (removed the clone): clone the project with `git clone %s`, then run `megagit init` in it",
				local.ErrNotRegistry, rawURL, registry.RefBranch.Short(), rawURL)
		}
		return nil, fmt.Errorf("%w: %s has no %s folder at its top (removed the clone)", local.ErrNotRegistry, rawURL, local.MetaDir)
	}
	if links, err := escapingLinks(abs); err != nil || len(links) > 0 {
		cleanup()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s holds symlinks that lead out of the registry (%s); megagit does not follow or create them, so it removed the clone: replace them with the files themselves in the remote, then clone again",
			errkind.ErrInvalid, gitauth.Redact(rawURL), strings.Join(links, ", "))
	}
	if tracked, err := trackedLocal(abs); err != nil || len(tracked) > 0 {
		cleanup()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s tracks %s: %s/ holds each machine's own state, which megagit never takes from a remote, so it removed the clone: stop tracking it there (`git rm -r --cached %s`, or `megagit doctor --fix` in a clone that has it), commit and push, then clone again",
			errkind.ErrInvalid, gitauth.Redact(rawURL), strings.Join(tracked, ", "), local.MachineDir, local.MachineDir)
	}
	if err := local.MkdirAll(filepath.Join(abs, filepath.FromSlash(local.MachineDir))); err != nil {
		return nil, err
	}
	r, err := registry.Open(abs, opts)
	if err != nil {
		return nil, err
	}
	if !r.IgnoresLocal() {
		reg{r}.warn(".gitignore does not ignore %s/: add the line /%s/ so per-machine files stay out of commits", local.MachineDir, local.MachineDir)
	}
	return r, nil
}

// absoluteLocal is rawURL with a local path (./x, ../r.git, x) made
// absolute; URLs (file://, ssh, git@host:path, https) are left as given.
func absoluteLocal(rawURL string) (string, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil || ep.Protocol != "file" || strings.HasPrefix(rawURL, "file://") {
		return rawURL, nil
	}
	return filepath.Abs(rawURL)
}

// pickBranch lists the remote's branches and picks main, else master, else
// the first by name.
func pickBranch(ctx context.Context, rawURL string, auth transport.AuthMethod) (plumbing.ReferenceName, bool) {
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{rawURL}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		return "", false
	}
	var branches []string
	for _, ref := range refs {
		if ref.Name().IsBranch() {
			branches = append(branches, ref.Name().String())
		}
	}
	if len(branches) == 0 {
		return "", false
	}
	sort.Strings(branches)
	for _, want := range []string{"refs/heads/main", "refs/heads/master"} {
		for _, b := range branches {
			if b == want {
				return plumbing.ReferenceName(b), true
			}
		}
	}
	return plumbing.ReferenceName(branches[0]), true
}

// escapingLinks lists the symlinks of the cloned commit (HEAD's tree) at
// root whose target is absolute or climbs out of root.
func escapingLinks(root string) ([]string, error) {
	repo, err := git.PlainOpen(root)
	if err != nil {
		return nil, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	var out []string
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode != filemode.Symlink {
			return nil
		}
		target, err := f.Contents()
		if err != nil {
			return err
		}
		joined := path.Join(path.Dir(f.Name), target)
		if path.IsAbs(target) || joined == ".." || strings.HasPrefix(joined, "../") {
			out = append(out, f.Name+" -> "+target)
		}
		return nil
	})
	return out, err
}

// trackedLocal lists the entries of the cloned commit (HEAD's tree) at
// root that are .megagit/local or lie under it (registry.IsLocalPath: in
// any spelling, and a symlink, file or submodule in its place), sorted;
// checked before the registry is opened, since opening reads that folder.
func trackedLocal(root string) ([]string, error) {
	repo, err := git.PlainOpen(root)
	if err != nil {
		return nil, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	var out []string
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if e.Mode != filemode.Dir && registry.IsLocalPath(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}
