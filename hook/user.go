package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/megagit/megagit/local"
)

// UserRegistryFlag is the hooks' flag naming the user registry, which a
// user-scope install writes (`--user-registry DIR`): the hook routes in the
// registry of the agent's folder, which reads the user registry too, and
// in the user registry where that folder has none.
const UserRegistryFlag = "--user-registry"

// ErrProjectHook is a user-scope hook in a project whose own settings run
// megagit's hook for the same agent: that one answers, so the user's hook
// prints nothing (two injections, two verdicts otherwise).
var ErrProjectHook = errors.New("the project's own megagit hook answers here")

// ErrOtherAgent is a Claude Code hook run by GitHub Copilot CLI (from a
// project's .claude/settings.json, Input.FromCopilot): megagit's Copilot
// CLI hooks answer Copilot, so this one prints and records nothing.
var ErrOtherAgent = errors.New("an event of GitHub Copilot CLI, which megagit's copilot hooks answer")

// CheckSender returns ErrOtherAgent for an event agent's hook must leave
// to another agent's.
func CheckSender(agent string, in Input) error {
	if agent == AgentClaude && in.FromCopilot() {
		return ErrOtherAgent
	}
	return nil
}

// Locate is the folder a hook looks for its registry from: -C (dir) when
// given, else the agent's cwd (RegistryDir). A user-scope hook (userReg
// set) takes the user registry where the cwd has no registry of its own,
// and returns ErrProjectHook in a project that runs megagit's hook for
// agent itself.
func Locate(dir, userReg, cwd, agent string) (string, error) {
	where := RegistryDir(dir, cwd)
	if dir != "" || userReg == "" {
		return where, nil
	}
	if ProjectRunsHook(where, agent) {
		return "", ErrProjectHook
	}
	root, err := local.Find(where)
	if errors.Is(err, local.ErrNotRegistry) {
		return userReg, nil
	}
	if err == nil {
		return root, nil // found: opening it does not walk up again
	}
	return where, nil
}

// ProjectSettings are the project's settings files of agent that can hold
// hooks, relative to the project's top.
func ProjectSettings(agent string) []string {
	switch agent {
	case AgentClaude:
		return []string{".claude/settings.json", ".claude/settings.local.json"}
	case AgentCodex:
		return []string{".codex/hooks.json"}
	case AgentGemini:
		return []string{".gemini/settings.json"}
	case AgentOpencode:
		return []string{OpencodePlugin}
	case AgentCopilot:
		return []string{CopilotHooks}
	}
	return nil
}

// ProjectRunsHook reports whether the project around cwd (the nearest
// folder with a .git entry, else cwd) has megagit's prompt hook in its own
// settings for agent.
func ProjectRunsHook(cwd, agent string) bool {
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	top := projectTop(cwd)
	if top == "" {
		top = cwd
	}
	home, _ := os.UserHomeDir()
	for _, f := range ProjectSettings(agent) {
		p := filepath.Join(top, filepath.FromSlash(f))
		if home != "" && SameFile(p, filepath.Join(home, filepath.FromSlash(f))) {
			continue // the user's own settings (in the home folder, or a dotfiles repository there): not a project's
		}
		data, err := local.ReadRegular(p, maxSettings) // a FIFO there never blocks the hook
		if err != nil {
			continue
		}
		for _, c := range HookCommands(data) {
			if HookKind(c) == "prompt" {
				return true
			}
		}
	}
	return false
}

// SameFile says whether paths a and b are one existing file.
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// maxSettings bounds a settings file the hook reads.
const maxSettings = 4 << 20

// hookRE matches `megagit [-C DIR] hook prompt|stop|session-start` and
// `megagit-hook [-C DIR] prompt|session-start`. It is compiled on first
// use, not at program start, which every megagit command (the prompt hook
// on every prompt) pays for.
var hookRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s/\\"'])megagit(?:(?:\.exe)?["']?\s+(?:-C\s+(?:"[^"]*"|'[^']*'|\S+)\s+)?hook|-hook(?:\.exe)?["']?(?:\s+-C\s+(?:"[^"]*"|'[^']*'|\S+))?)\s+(prompt|stop|session-start)\b`)
})

// HookKind is which of megagit's hooks a command runs (prompt, stop,
// session-start), or "" for none of them.
func HookKind(command string) string {
	if m := hookRE().FindStringSubmatch(command); m != nil {
		return m[1]
	}
	return ""
}

// Where megagit's hooks are in a project for opencode and Copilot CLI,
// relative to its top (hook/install writes them).
const (
	// OpencodePlugin is megagit's opencode plugin: opencode loads every
	// .js/.ts file of .opencode/plugins/ at startup.
	OpencodePlugin = ".opencode/plugins/megagit.js"
	// CopilotHooks is megagit's Copilot CLI hooks file: Copilot loads
	// every .github/hooks/*.json of a trusted folder.
	CopilotHooks = ".github/hooks/megagit.json"
)

// PluginCommandsPrefix starts the line of megagit's opencode plugin that
// holds its commands as JSON ({"hooks": [{"event", "command"}]}), so
// install, doctor and the hooks read them back as they read a settings
// file's.
const PluginCommandsPrefix = "const megagit = "

// HookCommands are the "command" strings (Copilot CLI: "bash") anywhere
// in a JSON document that run megagit's hooks, in no particular order; in
// megagit's opencode plugin, those of its commands line.
func HookCommands(data []byte) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		line, ok := pluginCommandsLine(data)
		if !ok || json.Unmarshal(line, &v) != nil {
			return nil
		}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && (k == "command" || k == "bash") && HookKind(s) != "" {
					out = append(out, s)
				}
				walk(val)
			}
		case []any:
			for _, val := range x {
				walk(val)
			}
		}
	}
	walk(v)
	return out
}

// pluginCommandsLine is the JSON of the commands line of megagit's
// opencode plugin (PluginCommandsPrefix), if data has one.
func pluginCommandsLine(data []byte) ([]byte, bool) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(PluginCommandsPrefix)); ok {
			return bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(";")), true
		}
	}
	return nil, false
}
