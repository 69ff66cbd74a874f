package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/hook"
)

// MCPServerName is the name `megagit mcp` is registered under in every
// agent's MCP configuration; an entry of that name is megagit's.
const MCPServerName = "megagit"

// MCPPath is the file an agent reads its MCP servers from:
//   - Claude Code: the project's .mcp.json (shared with the team), or the
//     top-level "mcpServers" of ~/.claude.json for the user scope
//     (code.claude.com/docs/en/mcp);
//   - Codex: [mcp_servers.NAME] in .codex/config.toml, the project's (read
//     in trusted projects) or ~/.codex/config.toml
//     (developers.openai.com/codex/mcp);
//   - Gemini CLI: "mcpServers" in .gemini/settings.json, the project's or
//     the home folder's (geminicli.com/docs/tools/mcp-server);
//   - opencode: "mcp" in the project's opencode.json or
//     ~/.config/opencode/opencode.json (opencode.ai/docs/mcp-servers);
//   - Copilot CLI: "mcpServers" in the project's .github/mcp.json or
//     ~/.copilot/mcp-config.json (a local server lists its "tools").
func MCPPath(agent, scope, workTree, home string) (string, error) {
	if scope == ScopeLocal {
		return "", fmt.Errorf("--mcp with --scope local: megagit registers its MCP server per project (--scope project) or for you (--scope user)")
	}
	base := workTree
	if scope == ScopeUser {
		base = home
	}
	switch agent {
	case hook.AgentClaude:
		if scope == ScopeUser {
			return filepath.Join(home, ".claude.json"), nil
		}
		return filepath.Join(base, ".mcp.json"), nil
	case hook.AgentCodex:
		if scope == ScopeUser {
			return filepath.Join(codexHome(home), "config.toml"), nil
		}
		return filepath.Join(base, ".codex", "config.toml"), nil
	case hook.AgentGemini:
		return filepath.Join(base, ".gemini", "settings.json"), nil
	case hook.AgentOpencode:
		if scope == ScopeUser {
			return filepath.Join(opencodeDir(home), "opencode.json"), nil
		}
		return filepath.Join(base, "opencode.json"), nil
	case hook.AgentCopilot:
		if scope == ScopeUser {
			return filepath.Join(copilotHome(home), "mcp-config.json"), nil
		}
		return filepath.Join(base, ".github", "mcp.json"), nil
	}
	return "", hook.CheckAgent(agent)
}

// errUnsafe is an edit megagit could not check: the user gets the entry
// to add by hand instead.
var errUnsafe = errors.New("cannot edit it safely")

// RunMCP registers `megagit mcp` with one agent and scope (or removes it)
// and says what it did on ErrOut. The server runs as the hooks do (see
// commands): the same binary, pinned to the registry with -C where the
// hooks are.
func RunMCP(opts Options) error {
	home, err := os.UserHomeDir()
	if err != nil && opts.Scope == ScopeUser {
		return err
	}
	path, err := MCPPath(opts.Agent, opts.Scope, opts.WorkTree, home)
	if err != nil {
		return err
	}
	target, old, err := readSettings(path)
	if err != nil {
		return err
	}
	if opts.Uninstall && len(old) == 0 {
		fmt.Fprintf(opts.ErrOut, "megagit: %s does not exist; no MCP server to remove\n", path)
		return nil
	}
	argv := MCPCommand(opts)
	var updated []byte
	toml := opts.Agent == hook.AgentCodex
	oc := opts.Agent == hook.AgentOpencode
	switch {
	case oc && opts.Uninstall:
		updated, err = RemoveOpencodeMCP(old)
	case oc:
		updated, err = MergeOpencodeMCP(old, argv)
	case toml && opts.Uninstall:
		updated, err = RemoveMCPTOML(old)
	case toml:
		updated, err = MergeMCPTOML(old, argv)
	case opts.Uninstall:
		updated, err = RemoveMCPJSON(old)
	default:
		updated, err = MergeMCPJSON(old, argv, opts.Agent)
	}
	if errors.Is(err, errUnsafe) && !opts.Uninstall {
		fmt.Fprintf(opts.ErrOut, "megagit: warning: %s: %v: add megagit's MCP server to it yourself:\n", path, err)
		fmt.Fprint(opts.Out, MCPSnippet(opts.Agent, argv))
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, path, err)
	}
	if string(updated) == string(old) {
		fmt.Fprintf(opts.ErrOut, "megagit: the MCP server in %s is up to date\n", path)
		return nil
	}
	if opts.DryRun {
		fmt.Fprint(opts.Out, Diff(path, path, string(old), string(updated)))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := writeSettings(target, updated); err != nil {
		return err
	}
	verb := "registered megagit's MCP server in"
	if opts.Uninstall {
		verb = "removed megagit's MCP server from"
	}
	fmt.Fprintf(opts.ErrOut, "megagit: %s %s\n", verb, path)
	return nil
}

// MCPCommand is the argv an agent starts `megagit mcp` with: how the hooks
// run megagit (commands), split into words, then "mcp".
func MCPCommand(opts Options) []string {
	quiet := opts
	quiet.ErrOut, quiet.Lean = io.Discard, "none" // the hooks' run already said it
	// The server has no folder of its own to fall back from: a user-scope
	// one serves the user registry (-C).
	quiet.UserRegistry = ""
	command, _ := commands(quiet)
	return append(splitWords(command), "mcp")
}

// splitWords splits a command line as a POSIX shell would split
// ShellQuote's output and plain words: single and double quotes, and
// backslash escapes outside single quotes.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// MCPSnippet is the entry to add by hand, in the agent's format.
func MCPSnippet(agent string, argv []string) string {
	if agent == hook.AgentCodex {
		return string(mcpTOMLTable(argv))
	}
	entry, key := mcpJSONEntry(argv, agent), "mcpServers"
	if agent == hook.AgentOpencode {
		entry, key = opencodeMCP(argv), "mcp"
	}
	root := &object{vals: map[string]json.RawMessage{}}
	servers := &object{vals: map[string]json.RawMessage{}}
	servers.set(MCPServerName, entry)
	root.set(key, servers.marshal())
	out, _ := format(root.marshal())
	return string(out)
}
