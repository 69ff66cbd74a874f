package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// layout is where an agent keeps its sessions: a folder under its home,
// then one name test per level below it, the last one the file's.
type layout struct {
	dir    string
	levels []func(name string) bool
}

func anyName(string) bool { return true }

// layoutOf is agent's session folder under o.Home, or "" for an unknown
// agent.
func layoutOf(agent string, o Options, home string) (layout, bool) {
	abs := func(env, fallback string) string {
		if v := o.env(env); v != "" && filepath.IsAbs(v) {
			return v
		}
		return fallback
	}
	switch agent {
	case AgentClaude:
		return layout{filepath.Join(abs("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude")), "projects"), []func(string) bool{
			anyName,
			func(n string) bool { return strings.HasSuffix(n, ".jsonl") },
		}}, true
	case AgentCodex:
		return layout{filepath.Join(abs("CODEX_HOME", filepath.Join(home, ".codex")), "sessions"), []func(string) bool{
			anyName, anyName, anyName,
			func(n string) bool { return strings.HasPrefix(n, "rollout-") && strings.HasSuffix(n, ".jsonl") },
		}}, true
	case AgentGemini:
		return layout{filepath.Join(abs("GEMINI_CLI_HOME", home), ".gemini", "tmp"), []func(string) bool{
			anyName,
			func(n string) bool { return n == "chats" },
			func(n string) bool {
				return strings.HasPrefix(n, "session-") && (strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".json"))
			},
		}}, true
	}
	return layout{}, false
}

// Sessions lists the session files, oldest first, without reading them.
// An agent whose folder does not exist has none. The folder itself is
// resolved (it may be a symlink, as a dotfiles manager leaves it), but no
// symlink below it is followed: a symlinked project folder or session file
// is skipped, so nothing outside the agent's folder is ever listed. A
// folder below it that cannot be read is skipped too.
func Sessions(o Options) ([]Session, error) {
	home := o.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("find the home folder: %w", err)
		}
		home = h
	}
	agents := o.Agents
	if agents == nil {
		agents = []string{AgentClaude, AgentCodex, AgentGemini}
	}
	var out []Session
	for _, agent := range agents {
		l, ok := layoutOf(agent, o, home)
		if !ok {
			return nil, fmt.Errorf("unknown agent %q (want claude, codex or gemini)", agent)
		}
		root, err := filepath.EvalSymlinks(l.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s sessions: %w", agent, err)
		}
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			continue
		}
		out = walk(out, agent, root, l.levels, o)
	}
	slices.SortFunc(out, func(a, b Session) int {
		if c := a.ModTime.Compare(b.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	// An agent named twice, or two agents' folders set to one: each file once.
	return slices.CompactFunc(out, func(a, b Session) bool { return a.Path == b.Path && a.Agent == b.Agent }), nil
}

// walk appends the session files under dir that levels accepts: folders
// and regular files only, as the folder lists them (never through a
// symlink).
func walk(out []Session, agent, dir string, levels []func(string) bool, o Options) []Session {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	last := len(levels) == 1
	for _, e := range entries {
		if !levels[0](e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case !last && e.Type().IsDir():
			out = walk(out, agent, p, levels[1:], o)
		case last && e.Type().IsRegular():
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() || info.ModTime().Before(o.Since) {
				continue
			}
			out = append(out, Session{Agent: agent, Path: p, ModTime: info.ModTime(), Size: info.Size()})
		}
	}
	return out
}
