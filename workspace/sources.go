package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/config"
	install "github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/learn/learnt"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/route/index"
)

// Where a skill comes from, highest precedence first: a name defined by
// more than one source resolves to the first; the others are shadowed.
const (
	// KindProject is the registry's own roots and the project's native
	// folders (<project>/.claude/skills, ...).
	KindProject = "project"
	// KindUser is the user-level native folders (~/.claude/skills, ...).
	KindUser = "user"
	// KindTeam is the team registry of the user config.
	KindTeam = "team"
	// KindPlugin is the skills of Claude Code's installed, enabled plugins.
	KindPlugin = "plugin"
)

// nativeFolder is one agent's skill folder, relative to the project (the
// registry's git work tree) or to the home folder (xdg: to the config
// folder, $XDG_CONFIG_HOME or ~/.config).
type nativeFolder struct {
	agent, rel string
	user, xdg  bool
}

// nativeFolders are the folders the agents read skills from, as their
// documentation says: Claude Code .claude/skills (project and user);
// Codex .agents/skills (project and user) and its older ~/.codex/skills;
// Gemini CLI .gemini/skills (project and user; it reads .agents/skills
// too, as an alias). opencode 1.18.33 and Copilot CLI 1.0.102 as their
// code reads them (and their requests to a model list them): opencode
// .opencode/skill(s) and ~/.config/opencode/skill(s), besides
// .claude/skills and .agents/skills of the project and the home folder;
// Copilot .github/skills and ~/.copilot/skills, besides the project's
// .claude/skills and .agents/skills and ~/.agents/skills.
var nativeFolders = []nativeFolder{
	{"claude", ".claude/skills", false, false},
	{"codex", ".agents/skills", false, false},
	{"gemini", ".gemini/skills", false, false},
	{"opencode", ".opencode/skills", false, false},
	{"opencode", ".opencode/skill", false, false},
	{"copilot", ".github/skills", false, false},
	{"claude", ".claude/skills", true, false},
	{"codex", ".agents/skills", true, false},
	{"codex", ".codex/skills", true, false},
	{"gemini", ".gemini/skills", true, false},
	{"opencode", "opencode/skills", true, true},
	{"opencode", "opencode/skill", true, true},
	{"copilot", ".copilot/skills", true, false},
}

// Folder is a folder of skills outside the registry's own roots.
type Folder struct {
	Kind string // KindProject or KindUser
	// Dir is the folder, absolute.
	Dir string
	// Agent is the agent that reads it natively (claude, codex, gemini).
	Agent string
}

// on says whether cfg reads an agent's native folders.
func on(s config.Sources, agent string) bool {
	switch agent {
	case "claude":
		return s.Claude
	case "codex":
		return s.Codex
	case "gemini":
		return s.Gemini
	case "opencode":
		return s.Opencode
	case "copilot":
		return s.Copilot
	}
	return false
}

// NativeFolders are the native folders the config reads, whether they
// exist or not (one created later is then seen), without the ones that
// are the registry's own roots, and each real folder once.
func (w *Workspace) NativeFolders() []Folder {
	home, _ := os.UserHomeDir()
	seen := map[string]bool{}
	for _, r := range w.Cfg.Roots {
		seen[realPath(filepath.Join(w.Reg.Root(), filepath.FromSlash(r)))] = true
	}
	var out []Folder
	for _, nf := range nativeFolders {
		if !on(w.Cfg.Sources, nf.agent) || nf.user && (!w.Cfg.Sources.User || home == "") {
			continue
		}
		f := Folder{Kind: KindProject, Dir: filepath.Join(w.Reg.WorkTree(), filepath.FromSlash(nf.rel)), Agent: nf.agent}
		if nf.user {
			base := home
			if nf.xdg {
				base = configHome(home)
			}
			f.Kind, f.Dir = KindUser, filepath.Join(base, filepath.FromSlash(nf.rel))
		}
		if real := realPath(f.Dir); !seen[real] {
			seen[real] = true
			out = append(out, f)
		}
	}
	return out
}

// configHome is the user's config folder as opencode finds it:
// $XDG_CONFIG_HOME when absolute, else ~/.config.
func configHome(home string) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x
	}
	return filepath.Join(home, ".config")
}

// IsAgentFolder says whether rel, slash-separated, is one of the agents'
// skill folders, relative to the project's work tree (user false) or the
// home folder (user true).
func IsAgentFolder(rel string, user bool) bool {
	for _, nf := range nativeFolders {
		if nf.user == user && nf.rel == rel {
			return true
		}
	}
	return false
}

// RealPath resolves symlinks in p as far as it exists.
func RealPath(p string) string { return realPath(p) }

// realPath resolves symlinks in p as far as it exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// Team is the team registry of the user config, opened with its own
// config (its roots only: its own sources are not read), or nil when
// there is none or sources.team is off. It is opened once.
func (w *Workspace) Team() (*Workspace, error) {
	w.teamOnce.Do(func() {
		if w.User == nil || w.User.TeamRegistry == "" || !w.Cfg.Sources.Team {
			return
		}
		dir := w.User.TeamRegistry
		root, err := local.Find(dir)
		if err == nil && realPath(root) != realPath(dir) {
			err = fmt.Errorf("%w: %s", local.ErrNotRegistry, dir)
		}
		if err != nil {
			w.teamErr = fmt.Errorf("team_registry %s (%s): %w", dir, userFileName(w.User), err)
			return
		}
		if realPath(root) == realPath(w.Reg.Root()) {
			return // this registry is the team's: nothing more to read
		}
		cfg, reg, err := w.openOtherRoot(root, "team registry")
		if err != nil {
			w.teamErr = fmt.Errorf("team registry %s: %w", root, err)
			return
		}
		w.team = &Workspace{Reg: reg, Cfg: cfg, User: &config.User{}}
	})
	return w.team, w.teamErr
}

// openOtherRoot opens another registry at root (the team's, the user's;
// what names it) with its own config, read as w's was: in a hook, a bad
// setting is set aside and noted in w.Problems (but for those of the
// environment, which w's own already note); in a command, a setting its
// committed config may not set is a warning. Its local config is not read
// when git tracks it.
func (w *Workspace) openOtherRoot(root, what string) (*config.Config, *registry.Registry, error) {
	files := config.FilesFor(ConfigFile(root))
	for {
		cfg, err := w.loadOther(files, what)
		if err != nil {
			return nil, nil, err
		}
		reg, err := registry.Open(root, registry.Options{Roots: cfg.Roots, LockTimeout: cfg.Lock.Timeout, Warn: w.Reg.Options().Warn})
		if err != nil {
			return nil, nil, err
		}
		if localTracked(reg, files) {
			w.note(what, trackedLocalNote(files.Local))
			files.Local = ""
			continue
		}
		if !w.hook {
			for _, ig := range cfg.Ignored {
				w.note(what, ig.Error())
			}
		}
		return cfg, reg, nil
	}
}

// note records a setting of another registry that was ignored: in the
// hook's Problems, or as a warning.
func (w *Workspace) note(what, msg string) {
	if w.hook {
		w.Problems = append(w.Problems, config.Problem{Err: fmt.Errorf("%s: %s", what, msg), Instead: "ignored"})
		return
	}
	if warn := w.Reg.Options().Warn; warn != nil {
		warn(what + ": " + msg + "; ignored")
	}
}

// loadOther reads another registry's config from files (see openOtherRoot).
func (w *Workspace) loadOther(files config.Files, what string) (*config.Config, error) {
	if !w.hook {
		cfg, _, err := config.LoadFiles(files, nil)
		return cfg, err
	}
	cfg, problems, err := config.LoadHookFiles(files)
	seen := map[string]bool{}
	for _, p := range w.Problems {
		seen[p.Err.Error()] = true
	}
	for _, p := range problems {
		if !seen[p.Err.Error()] {
			w.Problems = append(w.Problems, config.Problem{Err: fmt.Errorf("%s: %w", what, p.Err), Instead: p.Instead})
		}
	}
	return cfg, err
}

func userFileName(u *config.User) string {
	if u.File == "" {
		return "$" + config.TeamRegistryEnv
	}
	return u.File
}

// UserRegistry is where the evidence of read-only skills (native folders
// outside any registry, plugins) is recorded: the user registry once it
// exists (Personal), else the team registry when there is one, else this
// one. Evidence recorded before is still read where it is (NativeLedger).
func (w *Workspace) UserRegistry() *registry.Registry {
	if w.IsUserRegistry() {
		return w.Reg
	}
	if u, err := w.Personal(); err == nil && u != nil {
		return u.Reg
	}
	if t, err := w.Team(); err == nil && t != nil {
		return t.Reg
	}
	return w.Reg
}

// StampRoots are the folders the compiled index depends on, as route
// takes them: the registry's roots, every native folder read, the team
// registry's roots and the user registry's ledgers of read-only skills,
// so an edit in any of them refreshes the index.
func (w *Workspace) StampRoots() []string {
	out := append([]string(nil), w.Cfg.Roots...)
	for _, f := range w.NativeFolders() {
		out = append(out, f.Dir)
	}
	if t, err := w.Team(); err == nil && t != nil {
		for _, r := range t.Cfg.Roots {
			out = append(out, filepath.Join(t.Reg.Root(), filepath.FromSlash(r)))
		}
	}
	if u, err := w.Personal(); err == nil && u != nil && w.Cfg.Sources.User {
		for _, r := range u.Cfg.Roots {
			out = append(out, filepath.Join(u.Reg.Root(), filepath.FromSlash(r)))
		}
	} else if dir := w.UserRegistryDir(); dir != "" && !w.IsUserRegistry() {
		out = append(out, index.FileRoot(ConfigFile(dir))) // created: read it
	}
	for _, r := range w.evidenceRegs() {
		out = append(out, index.LedgerRoot(filepath.Join(r.Root(), filepath.FromSlash(registry.NativeLedgerDir))))
	}
	// The agents' files that decide which skills are read or routed.
	if w.Cfg.Sources.Plugins && w.Cfg.Sources.Claude {
		if installed, settings := w.pluginFiles(); installed != "" {
			for _, f := range append([]string{installed}, settings...) {
				out = append(out, index.FileRoot(f))
			}
		}
		plugins, _ := w.Plugins()
		for _, p := range plugins {
			out = append(out, p.Dir)
		}
	}
	if w.Cfg.Sources.Gemini || w.Cfg.Sources.Codex {
		for _, f := range w.geminiSettingsFiles() {
			out = append(out, index.FileRoot(f))
		}
	}
	if w.Cfg.Sources.Claude {
		for _, f := range w.ClaudeSettingsFiles() {
			out = append(out, index.FileRoot(f))
		}
	}
	if f := install.CodexUserConfig(); w.Cfg.Sources.Codex && f != "" {
		out = append(out, index.FileRoot(f))
	}
	// The prompts learnt from the agents' history.
	for _, ld := range w.learntStores() {
		out = append(out, index.FileRoot(learnt.LearntPath(ld)))
	}
	// adopt's switches: which of the agents' switches are megagit's own.
	out = append(out, index.FileRoot(w.HiddenPath()))
	out = append(out, w.lockedFiles()...)
	if dir := w.UserRegistryDir(); dir != "" && !w.IsUserRegistry() {
		out = append(out, index.FileRoot(filepath.Join(dir, filepath.FromSlash(local.MachineDir), HiddenFile)))
	}
	return out
}

// WatchFiles are the config files besides the registry's own that decide
// what the prompt hook reads: the user config, this machine's config of
// the registry (.megagit/local/config.yaml), and the team and user
// registries' files.
func (w *Workspace) WatchFiles() []string {
	out := []string{config.UserFile(), config.LocalFile(ConfigFile(w.Reg.Root()))}
	if t, err := w.Team(); err == nil && t != nil {
		out = append(out, ConfigFile(t.Reg.Root()), config.LocalFile(ConfigFile(t.Reg.Root())))
	}
	if u, err := w.Personal(); err == nil && u != nil {
		out = append(out, ConfigFile(u.Reg.Root()), config.LocalFile(ConfigFile(u.Reg.Root())))
	}
	return out
}

// Describe names a file or folder for people: ~/ for the home folder; a
// relative path (in the registry) as it is.
func Describe(dir string) string { return describe(dir) }

// describe names a folder for messages: ~/ for the home folder.
func describe(dir string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rest, ok := strings.CutPrefix(dir, home+string(os.PathSeparator)); ok {
			return "~/" + filepath.ToSlash(rest)
		}
	}
	return dir
}
