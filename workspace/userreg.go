package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/spf13/pflag"
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
	if err := initUserRegistry(dir, w.Reg.Options().Warn); err != nil {
		return nil, err
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
func (w *Workspace) NativeLedger(key string) ([]ledger.Entry, error) {
	var out []ledger.Entry
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
	ledger.Sort(out)
	return out, errors.Join(errs...)
}

// initUserRegistry creates the user registry at dir: a git repository of
// its own, roots: [skills], no remote; megagit's folder under the user's
// data folder, and the registry in it, are the user's alone.
func initUserRegistry(dir string, warn func(string)) error {
	if dir == "" {
		return fmt.Errorf("%w: no home folder, so no user registry: set %s (or user_registry in %s)", errkind.ErrInvalid, config.UserRegistryEnv, config.UserFile())
	}
	if dir == config.UserRegistryDefault() {
		if err := local.MkdirPrivate(filepath.Dir(dir)); err != nil {
			return fmt.Errorf("create the user registry %s: %w", dir, err)
		}
		if err := local.MkdirPrivate(dir); err != nil {
			return fmt.Errorf("create the user registry %s: %w", dir, err)
		}
	}
	if _, _, err := registry.Init(dir, config.DefaultFileRoots("skills"), registry.Options{Warn: warn}); err != nil {
		return fmt.Errorf("create the user registry %s: %w", dir, err)
	}
	return nil
}

// ErrNoUserRegistry is a user registry that does not exist yet.
var ErrNoUserRegistry = errors.New("no user registry yet")

// UserRegistryPath is where the user registry is or would be, from the
// user config ("" without a home folder).
func UserRegistryPath() (string, error) {
	u, err := config.LoadUser()
	if err != nil {
		return "", err
	}
	return u.UserRegistry, nil
}

// UserRegistryExists says whether the user registry at dir has been
// created.
func UserRegistryExists(dir string) bool {
	if dir == "" {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, local.MetaDir))
	return err == nil && st.IsDir()
}

// OpenUser opens the user registry as the workspace, from any folder:
// what `adopt --scope user` and `hook install --scope user` act on.
// create makes it on first use (created says so); without create a
// missing one is ErrNoUserRegistry, naming where it would be.
func OpenUser(flags *pflag.FlagSet, warn func(string), create bool) (w *Workspace, created bool, err error) {
	dir, err := UserRegistryPath()
	if err != nil {
		return nil, false, err
	}
	if !UserRegistryExists(dir) {
		if !create {
			if dir == "" {
				return nil, false, fmt.Errorf("%w: no home folder, so no user registry: set %s (or user_registry in %s)", ErrNoUserRegistry, config.UserRegistryEnv, config.UserFile())
			}
			return nil, false, fmt.Errorf("%w: it would be at %s", ErrNoUserRegistry, dir)
		}
		if err := initUserRegistry(dir, warn); err != nil {
			return nil, false, err
		}
		created = true
	}
	w, err = Open(dir, flags, warn)
	if err == nil && !w.IsUserRegistry() {
		// dir is inside another registry, which Open found instead.
		err = fmt.Errorf("%w: user registry %s: no %s folder of its own", local.ErrNotRegistry, dir, local.MetaDir)
	}
	return w, created, err
}

// PreviewUser stands in for a user registry that does not exist yet, for
// a dry run that must create nothing where the user would see it: a
// throwaway registry of the user registry's defaults in a temporary
// folder, which cleanup removes. What it reads (the agents' folders of
// your home, your settings) is what the real one would.
func PreviewUser(warn func(string)) (w *Workspace, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "megagit-user-preview-")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	_, _, err = registry.InitPreview(tmp, config.DefaultFileRoots("skills"), registry.Options{Warn: warn})
	if err == nil {
		w, err = Open(tmp, nil, warn)
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("preview the user registry: %w", err)
	}
	u := *w.User
	u.UserRegistry = w.Reg.Root()
	w.User = &u
	return w, cleanup, nil
}
