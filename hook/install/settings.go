package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/hook"
)

// Entry is one hook megagit adds to an agent's settings.
type Entry struct {
	Event   string
	Command string
	// Timeout is in the agent's unit (seconds for Claude Code, ms for
	// Gemini CLI); 0 leaves the agent's default.
	Timeout int
	Name    string // Gemini's optional handler name
	// Matcher, when set, limits the group to these sources (Claude Code's
	// SessionStart: startup|resume|clear|compact).
	Matcher string
}

// Scopes of an install.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
	// ScopeLocal is the project's own settings on this machine only, kept
	// out of git (Claude Code's .claude/settings.local.json).
	ScopeLocal = "local"
)

// Scopes are the install scopes, in the order doctor reads them.
var Scopes = []string{ScopeProject, ScopeLocal, ScopeUser}

// SettingsPath is the file an agent reads hooks from: Claude Code
// .claude/settings.json, Codex .codex/hooks.json, Gemini CLI
// .gemini/settings.json, under the project's work tree or the home folder;
// megagit's own files for opencode (the plugin .opencode/plugins/megagit.js,
// or in ~/.config/opencode/plugins/) and Copilot CLI (.github/hooks/megagit.json,
// or ~/.copilot/hooks/megagit.json: Copilot loads both folders' *.json).
func SettingsPath(agent, scope, workTree, home string) (string, error) {
	base := workTree
	if scope == ScopeUser {
		base = home
	}
	if scope == ScopeLocal {
		if agent != hook.AgentClaude {
			if err := hook.CheckAgent(agent); err != nil {
				return "", err
			}
			return "", fmt.Errorf("--scope local: %s has no settings file of a project kept to one machine; use --scope project or user", agent)
		}
		return filepath.Join(base, ".claude", "settings.local.json"), nil
	}
	switch agent {
	case hook.AgentClaude:
		return filepath.Join(base, ".claude", "settings.json"), nil
	case hook.AgentCodex:
		if scope == ScopeUser {
			return filepath.Join(codexHome(home), "hooks.json"), nil
		}
		return filepath.Join(base, ".codex", "hooks.json"), nil
	case hook.AgentGemini:
		return filepath.Join(base, ".gemini", "settings.json"), nil
	case hook.AgentOpencode:
		if scope == ScopeUser {
			return filepath.Join(opencodeDir(home), "plugins", "megagit.js"), nil
		}
		return filepath.Join(base, filepath.FromSlash(hook.OpencodePlugin)), nil
	case hook.AgentCopilot:
		if scope == ScopeUser {
			return filepath.Join(copilotHome(home), "hooks", "megagit.json"), nil
		}
		return filepath.Join(base, filepath.FromSlash(hook.CopilotHooks)), nil
	}
	return "", hook.CheckAgent(agent)
}

// codexHome is Codex's own folder: $CODEX_HOME when set (absolute), as
// Codex reads it, else ~/.codex.
func codexHome(home string) string {
	if h := os.Getenv("CODEX_HOME"); h != "" && filepath.IsAbs(h) {
		return h
	}
	return filepath.Join(home, ".codex")
}

// AgentEntries are megagit's hooks for an agent; command runs megagit
// (for example "megagit" or "/usr/local/bin/megagit -C /srv/skills") and
// lean, when not empty, runs the megagit-hook binary the same way: the
// prompt and session-start hooks then run `LEAN prompt` and `LEAN
// session-start`, which start faster.
//   - Claude Code: SessionStart (startup|resume|clear|compact) -> hook
//     session-start; UserPromptSubmit -> hook prompt; Stop (end of every
//     turn) and SessionEnd -> hook stop (code.claude.com/docs/en/hooks).
//   - Codex: SessionStart (startup, resume, clear) and PostCompact (its
//     SessionStart does not fire after a compaction) -> hook session-start,
//     UserPromptSubmit and Stop in hooks.json, the same three-level event ->
//     group -> handler layout (developers.openai.com/codex/hooks).
//   - Gemini CLI: SessionStart and PreCompress (the same reason) -> hook
//     session-start, BeforeAgent -> hook prompt, AfterAgent -> hook stop,
//     timeouts in milliseconds (geminicli.com/docs/hooks/reference).
//   - opencode: the commands of megagit's plugin (opencodeEntries).
//   - Copilot CLI: copilotEntries.
func AgentEntries(agent, command, lean string) ([]Entry, error) {
	prompt := command + " hook prompt --agent " + agent
	start := command + " hook session-start --agent " + agent
	if lean != "" {
		prompt = lean + " prompt --agent " + agent
		start = lean + " session-start --agent " + agent
	}
	stop := command + " hook stop --agent " + agent
	switch agent {
	case hook.AgentClaude:
		return []Entry{
			{Event: "SessionStart", Command: start, Timeout: 10, Matcher: "startup|resume|clear|compact"},
			{Event: "UserPromptSubmit", Command: prompt, Timeout: 10},
			{Event: "Stop", Command: stop, Timeout: 60},
			{Event: "SessionEnd", Command: stop, Timeout: 60},
		}, nil
	case hook.AgentCodex:
		return []Entry{
			{Event: "SessionStart", Command: start},
			{Event: "PostCompact", Command: start},
			{Event: "UserPromptSubmit", Command: prompt},
			{Event: "Stop", Command: stop},
		}, nil
	case hook.AgentGemini:
		return []Entry{
			{Event: "SessionStart", Command: start, Timeout: 10000, Name: "megagit-session-start"},
			{Event: "PreCompress", Command: start, Timeout: 10000, Name: "megagit-compress"},
			{Event: "BeforeAgent", Command: prompt, Timeout: 10000, Name: "megagit-prompt"},
			{Event: "AfterAgent", Command: stop, Timeout: 60000, Name: "megagit-stop"},
		}, nil
	case hook.AgentOpencode:
		return opencodeEntries(prompt, start, stop), nil
	case hook.AgentCopilot:
		return copilotEntries(prompt, start, stop), nil
	}
	return nil, hook.CheckAgent(agent)
}

// IsOurs reports whether a hook command runs `megagit hook
// prompt|stop|session-start` or `megagit-hook prompt|session-start`;
// Remove takes out exactly these and nothing else.
func IsOurs(command string) bool { return hook.HookKind(command) != "" }

func ourKind(command string) string { return hook.HookKind(command) }

// ShellQuote quotes a word for the agent's shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// handler is the part of a hook handler megagit reads.
type handler struct {
	Command string `json:"command"`
}

// Merge merges entries into a settings file's bytes (empty = a new
// file). Every other key, event, group and handler is kept; one of ours with
// the same command is kept as is, an outdated or duplicate one of ours for
// the same event is replaced, so a second install changes nothing.
func Merge(data []byte, entries []Entry) ([]byte, error) {
	root, hooks, err := openHooks(data)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		groups, err := rawArray(hooks.vals[e.Event], "hooks."+e.Event)
		if err != nil {
			return nil, err
		}
		kind := ourKind(e.Command)
		found := false
		groups, err = filterHandlers(groups, func(h handler) bool {
			if !IsOurs(h.Command) || ourKind(h.Command) != kind {
				return true
			}
			if !found && h.Command == e.Command {
				found = true
				return true
			}
			return false
		})
		if err != nil {
			return nil, err
		}
		if !found {
			groups = append(groups, newGroup(e))
		}
		hooks.set(e.Event, marshalArray(groups))
	}
	root.set("hooks", hooks.marshal())
	return format(root.marshal())
}

// Remove removes megagit's handlers (IsOurs) from every event, then the
// groups and events they leave empty, and "hooks" if nothing is left in it.
func Remove(data []byte) ([]byte, error) {
	root, hooks, err := openHooks(data)
	if err != nil {
		return nil, err
	}
	for _, ev := range append([]string(nil), hooks.keys...) {
		groups, err := rawArray(hooks.vals[ev], "hooks."+ev)
		if err != nil {
			continue // not a hook list: not ours to touch
		}
		kept, err := filterHandlers(groups, func(h handler) bool { return !IsOurs(h.Command) })
		if err != nil {
			return nil, err
		}
		switch {
		case len(kept) == len(groups) && equalRaw(kept, groups):
		case len(kept) == 0:
			hooks.del(ev)
		default:
			hooks.set(ev, marshalArray(kept))
		}
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.marshal())
	}
	return format(root.marshal())
}

func openHooks(data []byte) (root, hooks *object, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if root, err = parseObject(data); err != nil {
		return nil, nil, fmt.Errorf("settings file: %w", err)
	}
	hooks = &object{vals: map[string]json.RawMessage{}}
	if raw, ok := root.vals["hooks"]; ok {
		if hooks, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf("settings file: \"hooks\": %w", err)
		}
	}
	return root, hooks, nil
}

// filterHandlers keeps the handlers keep approves; a group whose handlers
// all go is dropped, other groups keep their bytes unless they changed.
func filterHandlers(groups []json.RawMessage, keep func(handler) bool) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, g := range groups {
		obj, err := parseObject(g)
		if err != nil {
			out = append(out, g) // not a group object: leave it alone
			continue
		}
		hs, err := rawArray(obj.vals["hooks"], "hooks[].hooks")
		if err != nil {
			out = append(out, g)
			continue
		}
		var kept []json.RawMessage
		for _, h := range hs {
			var hd handler
			if json.Unmarshal(h, &hd) != nil || keep(hd) {
				kept = append(kept, h)
			}
		}
		switch {
		case len(kept) == len(hs):
			out = append(out, g)
		case len(kept) > 0:
			obj.set("hooks", marshalArray(kept))
			out = append(out, obj.marshal())
		}
	}
	return out, nil
}

func newGroup(e Entry) json.RawMessage {
	h := &object{vals: map[string]json.RawMessage{}}
	if e.Name != "" {
		h.set("name", mustJSON(e.Name))
	}
	h.set("type", mustJSON("command"))
	h.set("command", mustJSON(e.Command))
	if e.Timeout > 0 {
		h.set("timeout", mustJSON(e.Timeout))
	}
	g := &object{vals: map[string]json.RawMessage{}}
	if e.Matcher != "" {
		g.set("matcher", mustJSON(e.Matcher))
	}
	g.set("hooks", marshalArray([]json.RawMessage{h.marshal()}))
	return g.marshal()
}

func equalRaw(a, b []json.RawMessage) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func format(compact []byte) ([]byte, error) {
	var c, out bytes.Buffer
	if err := json.Compact(&c, compact); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, c.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
