package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
)

// The user registry is your own registry, outside every project
// (config.User.UserRegistry, ${XDG_DATA_HOME:-~/.local/share}/megagit/user
// by default): it holds the personal skills `megagit adopt --scope user`
// took from the agents' folders of your home, which every project reads as
// user skills, and the evidence of read-only skills once it exists. It is
// created by the first adopt that needs it, never by a hook or a verdict.

// UserRegistryDir is where the user registry is or would be ("" without a
// home folder).
func (w *Workspace) UserRegistryDir() string {
	if w.User == nil {
		return ""
	}
	return w.User.UserRegistry
}

// IsUserRegistry says whether w is the user registry itself.
func (w *Workspace) IsUserRegistry() bool {
	dir := w.UserRegistryDir()
	return dir != "" && realPath(dir) == realPath(w.Reg.Root())
}

// Personal is the user registry, opened with its own config (its roots
// only: its own sources are not read), or nil when it does not exist yet
// or w is it. It is opened once.
func (w *Workspace) Personal() (*Workspace, error) {
	w.userOnce.Do(func() {
		dir := w.UserRegistryDir()
		if dir == "" || w.IsUserRegistry() {
			return
		}
		if _, err := os.Stat(filepath.Join(dir, local.MetaDir)); errors.Is(err, fs.ErrNotExist) {
			return
		}
		w.user, w.userErr = w.openOther(dir, "user registry")
	})
	return w.user, w.userErr
}

// openOther opens the registry at dir (the team's, the user's) with its
// own config; what names it in errors.
func (w *Workspace) openOther(dir, what string) (*Workspace, error) {
	root, err := local.Find(dir)
	if err == nil && realPath(root) != realPath(dir) {
		err = fmt.Errorf("%w: %s", local.ErrNotRegistry, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, dir, err)
	}
	cfg, reg, err := w.openOtherRoot(root, what)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, root, err)
	}
	return &Workspace{Reg: reg, Cfg: cfg, User: w.User, hook: w.hook}, nil
}

// CreateUserRegistry opens the user registry, creating it (a git
// repository of its own, roots: [skills], no remote) on first use.
func (w *Workspace) CreateUserRegistry() (*Workspace, error) {
	if w.IsUserRegistry() {
		return w, nil
	}
	if u, err := w.Personal(); u != nil || err != nil {
		return u, err
	}
	dir := w.UserRegistryDir()
	if dir == "" {
		return nil, fmt.Errorf("%w: no home folder, so no user registry: set %s (or user_registry in %s)", local.ErrInvalid, config.UserRegistryEnv, config.UserFile())
	}
	if dir == config.UserRegistryDefault() {
		// megagit's folder under the user's data folder, and the registry
		// in it, are the user's alone.
		if err := local.MkdirPrivate(filepath.Dir(dir)); err != nil {
			return nil, fmt.Errorf("create the user registry %s: %w", dir, err)
		}
		if err := local.MkdirPrivate(dir); err != nil {
			return nil, fmt.Errorf("create the user registry %s: %w", dir, err)
		}
	}
	if _, _, err := registry.Init(dir, config.DefaultFileRoots("skills"), registry.Options{Warn: w.Reg.Options().Warn}); err != nil {
		return nil, fmt.Errorf("create the user registry %s: %w", dir, err)
	}
	u, err := w.openOther(dir, "user registry")
	if err != nil {
		return nil, err
	}
	w.user, w.userErr = u, nil
	return u, nil
}

// evidenceRegs are the registries a read-only skill's evidence may be in,
// the one new verdicts go to (UserRegistry) first: before the user
// registry existed it went to the team registry, else to the registry
// then in use.
func (w *Workspace) evidenceRegs() []*registry.Registry {
	out := []*registry.Registry{w.UserRegistry()}
	add := func(r *registry.Registry) {
		for _, o := range out {
			if realPath(o.Root()) == realPath(r.Root()) {
				return
			}
		}
		out = append(out, r)
	}
	if t, err := w.Team(); err == nil && t != nil {
		add(t.Reg)
	}
	add(w.Reg)
	return out
}

// NativeLedger is a read-only skill's evidence (key: registry.NativeKey),
// from every registry it may be in (evidenceRegs), each verdict once.
func (w *Workspace) NativeLedger(key string) ([]registry.Entry, error) {
	var out []registry.Entry
	seen := map[string]bool{}
	var errs []error
	for _, r := range w.evidenceRegs() {
		entries, err := r.NativeLedger(key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			if !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	registry.SortEntries(out)
	return out, errors.Join(errs...)
}
