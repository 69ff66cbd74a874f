// Package workspace is a registry opened with its configuration — the pair
// every command, the hooks and the server start from — and what is built
// from it: the ranker's settings, the skills as ranker documents, the
// router, the prompt hook's view of the registry, and the work a command
// asks for that spans packages (doctor's repairs, embedding, the decision
// log), so the command makes one call. adopt (workspace/adopt) and
// doctor's checks (workspace/checkup) build on it from above.
package workspace

import (
	"errors"
	"os"
	"sync"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/spf13/pflag"
)

// Workspace is an opened registry and the config it was opened with.
type Workspace struct {
	Reg *registry.Registry
	Cfg *config.Config
	// User is the user-level config (the team registry); nil reads no
	// team registry.
	User *config.User
	// Problems are the bad settings OpenHook set aside (config.LoadHook),
	// for the hook log: the registry's, and the team registry's once Team
	// has read it.
	Problems []config.Problem
	// Files are the config files Cfg was read from (config.LoadFiles):
	// without the local one when git tracks it.
	Files config.Files

	hook     bool // opened by OpenHook: a bad setting never stops it
	teamOnce sync.Once
	team     *Workspace
	teamErr  error
	userOnce sync.Once
	user     *Workspace // the user registry (Personal)
	userErr  error
}

// Open finds the registry around dir, loads its config (flags override the
// file, as config.Load does) and opens the registry with it; the registry's
// warnings go to warn, and so do the settings its committed config may
// not set (config.Ignored). A dir in no registry is local.ErrNotRegistry.
func Open(dir string, flags *pflag.FlagSet, warn func(string)) (*Workspace, error) {
	root, err := local.Find(dir)
	if err != nil {
		return nil, err
	}
	user, err := config.LoadUser()
	if err != nil {
		return nil, err
	}
	files := config.FilesFor(ConfigFile(root))
	for again := false; ; again = true {
		cfg, _, err := config.LoadFiles(files, flags)
		if err != nil {
			return nil, err
		}
		reg, err := registry.Open(root, registry.Options{
			Roots:       cfg.Roots,
			LockTimeout: cfg.Lock.Timeout,
			Warn:        warn,
		})
		if err != nil {
			return nil, err
		}
		// Opening finished a write a killed megagit left, which may have
		// rewritten the config file read above (a change of layout does):
		// read it again.
		if reg.Recovered() && !again {
			continue
		}
		if localTracked(reg, files) {
			warn(trackedLocalNote(files.Local))
			files.Local = ""
			continue
		}
		for _, ig := range cfg.Ignored {
			warn(ig.Error() + "; ignored")
		}
		return &Workspace{Reg: reg, Cfg: cfg, User: user, Files: files}, nil
	}
}

// OpenHook opens the registry and its config without printing anything: a
// hook's stdout belongs to the agent. A bad setting is set aside for the
// value below it and kept in Problems (config.LoadHook), as is a setting
// the committed config may not set, so the hook goes on. When the config
// file itself is broken the workspace still holds the registry (and a nil
// Cfg), so the error can be logged there.
func OpenHook(dir string) (*Workspace, error) {
	root, err := local.Find(dir)
	if err != nil {
		return nil, err
	}
	files := config.FilesFor(ConfigFile(root))
	var notes []config.Problem
	for again := false; ; again = true {
		cfg, problems, cfgErr := config.LoadHookFiles(files)
		user, userErr := config.LoadUser()
		if cfgErr == nil && userErr != nil {
			cfg, cfgErr = nil, userErr
		}
		opts := registry.Options{Warn: func(string) {}}
		if cfgErr == nil {
			opts.Roots, opts.LockTimeout = cfg.Roots, cfg.Lock.Timeout
		}
		reg, err := registry.Open(root, opts)
		if err != nil {
			return nil, err
		}
		if reg.Recovered() && !again {
			continue // as in Open: the config file may have changed
		}
		if localTracked(reg, files) {
			notes = append(notes, config.Problem{Err: errors.New(trackedLocalNote(files.Local)), Instead: "ignored"})
			files.Local = ""
			continue
		}
		return &Workspace{Reg: reg, Cfg: cfg, User: user, Files: files, Problems: append(notes, problems...), hook: true}, cfgErr
	}
}

// ConfigFile is the config file of the registry at root.
func ConfigFile(root string) string {
	return root + string(os.PathSeparator) + ".megagit" + string(os.PathSeparator) + config.FileName
}
