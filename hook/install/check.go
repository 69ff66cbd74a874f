package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/local"
)

// DoctorCheck looks for megagit's hooks in the agent settings files of the
// project and the user, so doctor can say when prompts go unrouted, and
// when an agent runs them twice (installed at both scopes, every prompt
// would get its skills injected twice and every verdict recorded twice),
// and when a file has no SessionStart hook (installed by an older
// megagit): the verdict-tag request then rides on the first injection of a
// session and is not given again after a compaction.
func DoctorCheck(workTree string) doctor.Check {
	home, _ := os.UserHomeDir()
	var found, noStart, double, fixes, broken, reinstalls, unread []string
	for _, agent := range hook.Agents {
		at := map[string]string{}
		for _, scope := range Scopes {
			p, err := SettingsPath(agent, scope, workTree, home)
			if err != nil {
				continue
			}
			_, data, err := readSettings(p)
			if err == nil && data != nil && len(bytes.TrimSpace(data)) > 0 && agent != hook.AgentOpencode {
				if _, _, err = openHooks(data); err != nil {
					err = fmt.Errorf("%s: %w", p, err)
				}
			}
			if err != nil {
				if !slices.Contains(unread, err.Error()) { // one file at both scopes
					unread = append(unread, err.Error())
				}
				continue
			}
			if data == nil {
				continue
			}
			kinds := ourKinds(data)
			if len(kinds) > 0 {
				found = append(found, p)
				if scope != ScopeUser || !userStepsAside(data) {
					at[scope] = p
				}
			}
			for _, c := range ourCommands(data) {
				if why := brokenCommand(c); why != "" && !slices.Contains(broken, p+": "+why) {
					broken = append(broken, p+": "+why)
					if fix := reinstall(agent, scope, false); !slices.Contains(reinstalls, fix) {
						reinstalls = append(reinstalls, fix)
					}
				}
			}
			if len(kinds) > 0 && !kinds["session-start"] {
				noStart = append(noStart, p)
			}
		}
		var where []string
		for _, scope := range Scopes {
			if at[scope] != "" && !slices.Contains(where, at[scope]) {
				where = append(where, at[scope])
			}
		}
		if len(where) > 1 {
			double = append(double, fmt.Sprintf("%s (%s)", agent, strings.Join(where, " and ")))
			fixes = append(fixes, fmt.Sprintf("`megagit hook uninstall --agent %s --scope user` (or --scope project, local)", agent))
		}
	}
	if len(double) > 0 {
		return doctor.Check{Name: "hooks", Status: doctor.Fail,
			Detail: "installed at more than one scope, so every prompt is routed and injected twice: " + strings.Join(double, "; "),
			Hint:   "keep one: " + strings.Join(fixes, "; ") + "; or run `megagit hook install --scope user` again without -C: user hooks that name your user registry give way to a project's own"}
	}
	if len(broken) > 0 {
		return doctor.Check{Name: "hooks", Status: doctor.Fail,
			Detail: "the agent cannot run megagit's hooks: " + strings.Join(broken, "; "),
			Hint:   "run " + strings.Join(reinstalls, ", ") + " again with this megagit (and the --command or --hook-command you installed with, if any)"}
	}
	if len(unread) > 0 {
		detail := "could not read an agent's settings file, so whether it runs megagit's hooks is unknown: " + strings.Join(unread, "; ")
		if len(found) > 0 {
			detail = "installed in " + strings.Join(found, ", ") + "; " + detail
		}
		return doctor.Check{Name: "hooks", Status: doctor.Warn, Detail: detail,
			Hint: "fix the file by hand (the agent may not load it either), then run `megagit hook install` if its hooks are gone"}
	}
	if len(found) == 0 {
		return doctor.Check{Name: "hooks", Status: doctor.Warn, Detail: "no agent settings file runs megagit's hooks",
			Hint: "run `megagit hook install` so prompts are routed and sessions leave verdicts"}
	}
	if len(noStart) > 0 {
		return doctor.Check{Name: "hooks", Status: doctor.Warn,
			Detail: "installed in " + strings.Join(found, ", ") + "; without the session-start hook in " + strings.Join(noStart, ", "),
			Hint:   "run `megagit hook install` again: the session-start hook asks for verdict tags once per session and again after a compaction"}
	}
	return doctor.Check{Name: "hooks", Status: doctor.OK, Detail: "installed in " + strings.Join(found, ", ")}
}

// userStepsAside says whether a user settings file's prompt hooks give way
// to a project's own (they name the user registry): installed at both
// scopes, prompts are then routed once.
func userStepsAside(data []byte) bool {
	aside := false
	for _, c := range ourCommands(data) {
		if hook.HookKind(c) == "prompt" {
			if !stepsAside(c) {
				return false
			}
			aside = true
		}
	}
	return aside
}

// settingsHaveOurs walks any JSON for a "command" string that runs megagit.
func settingsHaveOurs(data []byte) bool { return len(ourKinds(data)) > 0 }

// ourKinds walks any JSON for "command" strings that run megagit's hooks
// and returns which (prompt, stop, session-start).
func ourKinds(data []byte) map[string]bool {
	kinds := map[string]bool{}
	for _, c := range ourCommands(data) {
		kinds[ourKind(c)] = true
	}
	return kinds
}

// ourCommands are the "command" strings anywhere in a JSON document that
// run megagit's hooks, in no particular order.
func ourCommands(data []byte) []string { return hook.HookCommands(data) }

// brokenCommand says why an agent cannot run a command line of megagit's
// (a hook's, or the MCP server's words joined), or "" when nothing is
// known to be wrong: the megagit or megagit-hook binary it names by path
// is gone or not executable (moved, or a `go run` binary since deleted),
// or the registry its -C names is gone. A binary named without a path is
// looked up on the agent's PATH, which may not be this shell's, so it is
// not judged.
func brokenCommand(command string) string {
	words := splitWords(command)
	for i, w := range words {
		base := strings.TrimSuffix(filepath.Base(w), ".exe")
		if (base == "megagit" || base == "megagit-hook") && strings.ContainsAny(w, `/\`) {
			st, err := os.Stat(w)
			if err != nil {
				return fmt.Sprintf("%s does not exist", w)
			}
			if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
				return fmt.Sprintf("%s is not an executable file", w)
			}
		}
		if w == "-C" && i+1 < len(words) {
			if st, err := os.Stat(words[i+1]); err != nil || !st.IsDir() {
				return fmt.Sprintf("its registry %s (-C) is not a folder", words[i+1])
			}
		}
		if w == hook.UserRegistryFlag && i+1 < len(words) {
			if st, err := os.Stat(filepath.Join(words[i+1], local.MetaDir)); err != nil || !st.IsDir() {
				return fmt.Sprintf("its user registry %s (%s) is not a megagit registry", words[i+1], hook.UserRegistryFlag)
			}
		}
	}
	return ""
}

// MCPDoctorCheck looks for megagit's MCP server in every agent's MCP
// configuration (MCPPath, project and user scope) and checks that the
// agent can start it: an entry whose binary or registry is gone fails
// when the agent starts, and the agent then simply has no megagit tools.
// None registered is fine: the server is optional. A file megagit cannot
// parse is a warning: the agent may read a dialect megagit does not.
func MCPDoctorCheck(workTree string) doctor.Check {
	home, _ := os.UserHomeDir()
	var found, broken, reinstalls, seen, unread []string
	for _, agent := range hook.Agents {
		for _, scope := range []string{ScopeProject, ScopeUser} {
			p, err := MCPPath(agent, scope, workTree, home)
			if err != nil || slices.Contains(seen, p) {
				continue
			}
			seen = append(seen, p)
			_, data, err := readSettings(p)
			if err == nil && data == nil {
				continue // no such file
			}
			var argv []string
			var ok bool
			if err == nil {
				argv, ok, err = mcpEntry(data, agent)
			}
			if err != nil {
				unread = append(unread, fmt.Sprintf("%s: %v", p, err))
				continue
			}
			if !ok {
				continue
			}
			found = append(found, p)
			why := "the entry has no command"
			if argv[0] != "" {
				quoted := make([]string, len(argv))
				for i, w := range argv {
					quoted[i] = ShellQuote(w)
				}
				why = brokenCommand(strings.Join(quoted, " "))
			}
			if why != "" {
				broken = append(broken, p+": "+why)
				if fix := reinstall(agent, scope, true); !slices.Contains(reinstalls, fix) {
					reinstalls = append(reinstalls, fix)
				}
			}
		}
	}
	switch {
	case len(broken) > 0:
		return doctor.Check{Name: "mcp", Status: doctor.Fail,
			Detail: "the agent cannot start megagit's MCP server: " + strings.Join(broken, "; "),
			Hint:   "run " + strings.Join(reinstalls, ", ") + " again with this megagit (and the --command you installed with, if any)"}
	case len(unread) > 0:
		return doctor.Check{Name: "mcp", Status: doctor.Warn,
			Detail: "could not read an agent's MCP configuration, so its megagit entry is unchecked: " + strings.Join(unread, "; "),
			Hint:   "fix the file by hand, or see whether the agent reads it"}
	case len(found) == 0:
		return doctor.Check{Name: "mcp", Status: doctor.OK, Detail: "no agent has megagit's MCP server (optional: `megagit hook install --mcp`)"}
	}
	return doctor.Check{Name: "mcp", Status: doctor.OK, Detail: "registered in " + strings.Join(found, ", ")}
}

// mcpEntry is the command line of megagit's server in agent's MCP
// configuration ("mcpServers"."megagit" in JSON, read as MergeMCPJSON
// reads it; [mcp_servers.megagit] in Codex's TOML; "mcp"."megagit"."command",
// a list, in opencode's), and whether there is one; an error when the
// file does not parse.
func mcpEntry(data []byte, agent string) (argv []string, ok bool, err error) {
	type server struct {
		Command string   `json:"command" toml:"command"`
		Args    []string `json:"args" toml:"args"`
	}
	var s server
	if agent == hook.AgentOpencode {
		return opencodeMCPEntry(data)
	}
	if agent == hook.AgentCodex {
		var f struct {
			Servers map[string]server `toml:"mcp_servers"`
		}
		if err := toml.Unmarshal(data, &f); err != nil {
			return nil, false, err
		}
		if s, ok = f.Servers[MCPServerName]; !ok {
			return nil, false, nil
		}
	} else {
		_, servers, err := openMCPServers(data)
		if err != nil {
			return nil, false, err
		}
		raw, found := servers.vals[MCPServerName]
		if !found {
			return nil, false, nil
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, fmt.Errorf("\"mcpServers\".%q: %w", MCPServerName, err)
		}
	}
	return append([]string{s.Command}, s.Args...), true, nil
}

// reinstall is the install that rewrites an agent's entries at a scope
// with this megagit, as doctor names it.
func reinstall(agent, scope string, mcp bool) string {
	flag := ""
	if mcp {
		flag = " --mcp"
	}
	return fmt.Sprintf("`megagit hook install%s --agent %s --scope %s`", flag, agent, scope)
}
