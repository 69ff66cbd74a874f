package regsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/gitnet"
	"github.com/megagit/megagit/registry"
)

// ErrNoRemote: sync or doctor needs a git remote and there is none.
var ErrNoRemote = errors.New("no git remote")

// RemoteInfo is one configured git remote.
type RemoteInfo struct {
	Name string   `json:"name"`
	URLs []string `json:"urls"`
}

// AddRemote records a git remote in .git/config, exactly like
// `git remote add NAME URL`.
func AddRemote(rg *registry.Registry, name, url string) error {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t/\\:") || strings.HasPrefix(name, "-") {
		return fmt.Errorf("%w: remote name %q", errkind.ErrInvalid, name)
	}
	if _, err := transport.NewEndpoint(url); err != nil || strings.TrimSpace(url) == "" {
		return fmt.Errorf("%w: remote URL %q: %v", errkind.ErrInvalid, url, err)
	}
	_, err := rg.Store().Git().CreateRemote(&config.RemoteConfig{Name: name, URLs: []string{url}})
	if errors.Is(err, git.ErrRemoteExists) {
		return fmt.Errorf("%w: remote %q (see `git remote -v`)", registry.ErrExists, name)
	}
	return err
}

// Remotes lists the configured git remotes by name.
func Remotes(rg *registry.Registry) ([]RemoteInfo, error) {
	cfg, err := rg.Store().Git().Config()
	if err != nil {
		return nil, err
	}
	var out []RemoteInfo
	for name, rc := range cfg.Remotes {
		out = append(out, RemoteInfo{Name: name, URLs: rc.URLs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// resolveRemote picks the remote to sync with: the one asked for, else the
// current branch's upstream, else origin, else the only remote.
func (r reg) resolveRemote(name string, branch plumbing.ReferenceName) (string, string, error) {
	cfg, err := r.Store().Git().Config()
	if err != nil {
		return "", "", err
	}
	if name == "" {
		if b, ok := cfg.Branches[branch.Short()]; ok && b.Remote != "" {
			name = b.Remote
		} else if _, ok := cfg.Remotes["origin"]; ok {
			name = "origin"
		} else if len(cfg.Remotes) == 1 {
			for n := range cfg.Remotes {
				name = n
			}
		}
	}
	if name == "" {
		return "", "", fmt.Errorf("%w: add one with `megagit remote add origin URL`", ErrNoRemote)
	}
	rc, ok := cfg.Remotes[name]
	if !ok || len(rc.URLs) == 0 {
		return "", "", fmt.Errorf("%w named %q: add it with `megagit remote add %s URL`", ErrNoRemote, name, name)
	}
	return name, rc.URLs[0], nil
}

// fetch brings the remote's branches into refs/remotes/NAME/; an empty
// remote is not an error.
func (r reg) fetch(ctx context.Context, remote, url string) error {
	creds, err := gitauth.Cached(r.GitDir(), url)
	if err != nil {
		return err
	}
	r.RemoveTornRemoteRefs() // left by an older megagit killed mid-fetch
	r.dropOrphanPackIndexes()
	w := gitnet.Begin()
	err = w.Err(r.Store().Git().FetchContext(ctx, &git.FetchOptions{RemoteName: remote, Auth: creds.Auth}))
	if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) || errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return creds.Done(nil)
	}
	return fmt.Errorf("fetch from %s (%s): %w", remote, gitauth.Redact(url), redactErr(creds.Done(err)))
}

// dropOrphanPackIndexes removes pack indexes that have no pack beside
// them. go-git writes a fetched pack's .idx in place and only then renames
// the pack into objects/pack, so a fetch killed in between leaves a
// half-written .idx alone; the next fetch of the same pack would keep that
// .idx (it skips an index that exists) and put the pack beside it, hiding
// its objects from git. A pack is never renamed in while sync holds its
// lock, so an .idx without its pack is always such a leftover.
func (r reg) dropOrphanPackIndexes() {
	dir := filepath.Join(r.GitDir(), "objects", "pack")
	idxs, _ := filepath.Glob(filepath.Join(dir, "pack-*.idx"))
	for _, idx := range idxs {
		pack := strings.TrimSuffix(idx, ".idx") + ".pack"
		if _, err := os.Lstat(pack); errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(idx)
		}
	}
}

// push sends the local branch to the same branch on the remote and
// records the result as the remote-tracking ref, like git push does.
func (r reg) push(ctx context.Context, remote, url string, branch plumbing.ReferenceName, hash plumbing.Hash) error {
	creds, err := gitauth.Cached(r.GitDir(), url)
	if err != nil {
		return err
	}
	spec := config.RefSpec(hash.String() + ":" + branch.String())
	w := gitnet.Begin()
	err = w.Err(r.Store().Git().PushContext(ctx, &git.PushOptions{RemoteName: remote, Auth: creds.Auth, RefSpecs: []config.RefSpec{spec}}))
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return creds.Done(err)
	}
	_ = creds.Done(nil)
	tracking := plumbing.NewRemoteReferenceName(remote, branch.Short())
	return r.Store().Git().Storer.SetReference(plumbing.NewHashReference(tracking, hash))
}

// remoteHead is the last fetched commit of the remote's branch (zero when
// the remote has no such branch yet).
func (r reg) remoteHead(remote string, branch plumbing.ReferenceName) (plumbing.Hash, error) {
	ref, err := r.Store().Git().Storer.Reference(plumbing.NewRemoteReferenceName(remote, branch.Short()))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// redactErr hides the secrets of any URL an error from go-git quotes.
func redactErr(err error) error { return gitauth.RedactError(err) }
