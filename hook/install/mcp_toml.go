package install

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// Codex's config.toml is the user's, with their comments and layout:
// megagit edits its text (only the [mcp_servers.megagit] table and its
// subtables are replaced or removed) and then checks the edit with a TOML
// parser: the file must decode to what it decoded to before, with only
// megagit's server changed. An edit that fails the check (the server
// written as an inline table or dotted keys, say) is not written: the
// user gets the table to add by hand (errUnsafe).

// ourTableRE matches the header of megagit's table or one of its
// subtables: [mcp_servers.megagit], [mcp_servers."megagit".env], ...
// Both are compiled on first use, as oursRE is.
var ourTableRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*(?:` + MCPServerName + `|"` + MCPServerName + `"|'` + MCPServerName + `')\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$`)
})

// headerRE matches any table or array-of-tables header line.
var headerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[`) })

// mcpTOMLTable is megagit's table in Codex's format.
func mcpTOMLTable(argv []string) []byte {
	body, err := toml.Marshal(struct {
		Command string   `toml:"command"`
		Args    []string `toml:"args"`
	}{argv[0], append([]string{}, argv[1:]...)})
	if err != nil {
		panic(err) // two strings always encode
	}
	return append([]byte("[mcp_servers."+MCPServerName+"]\n"), body...)
}

// MergeMCPTOML sets [mcp_servers.megagit] in a Codex config.toml (empty =
// a new file) to run argv; everything else is kept as written.
func MergeMCPTOML(data []byte, argv []string) ([]byte, error) {
	before, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	if cur, ok := ourServer(before); ok && reflect.DeepEqual(cur, map[string]any{"command": argv[0], "args": anySlice(argv[1:])}) {
		return data, nil
	}
	lines, at := withoutOurTables(data)
	table := strings.TrimRight(string(mcpTOMLTable(argv)), "\n")
	var out []string
	if at >= 0 {
		out = append(out, lines[:at]...)
		out = append(out, table)
		if at < len(lines) {
			out = append(out, "")
		}
		out = append(out, lines[at:]...)
	} else {
		out = trimTrailingBlank(lines)
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, table)
	}
	updated := []byte(strings.Join(trimTrailingBlank(out), "\n") + "\n")
	want := cloneTOML(before)
	servers, _ := want["mcp_servers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
		want["mcp_servers"] = servers
	}
	servers[MCPServerName] = map[string]any{"command": argv[0], "args": anySlice(argv[1:])}
	return checkTOML(updated, want)
}

// RemoveMCPTOML removes [mcp_servers.megagit] and its subtables.
func RemoveMCPTOML(data []byte) ([]byte, error) {
	before, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	if _, ok := ourServer(before); !ok {
		return data, nil
	}
	lines, _ := withoutOurTables(data)
	updated := []byte(strings.Join(trimTrailingBlank(lines), "\n") + "\n")
	if len(trimTrailingBlank(lines)) == 0 {
		updated = nil
	}
	want := cloneTOML(before)
	if servers, ok := want["mcp_servers"].(map[string]any); ok {
		delete(servers, MCPServerName)
	}
	return checkTOML(updated, want)
}

// withoutOurTables is data's lines without megagit's tables (each from its
// header to the next header), and where the first one was (-1: none).
func withoutOurTables(data []byte) (lines []string, at int) {
	at = -1
	src := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), "\n")
	if len(data) == 0 {
		src = nil
	}
	ours := false
	for _, l := range src {
		if headerRE().MatchString(l) {
			ours = ourTableRE().MatchString(l)
			if ours && at < 0 {
				at = len(lines)
			}
		}
		if !ours {
			lines = append(lines, l)
		}
	}
	return lines, at
}

func trimTrailingBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func decodeTOML(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not valid TOML: %v", err)
	}
	return m, nil
}

// ourServer is megagit's server in a decoded config, if any.
func ourServer(m map[string]any) (any, bool) {
	servers, _ := m["mcp_servers"].(map[string]any)
	s, ok := servers[MCPServerName]
	return s, ok
}

// checkTOML returns updated if it decodes to want (an empty
// "mcp_servers" counts as none), else errUnsafe.
func checkTOML(updated []byte, want map[string]any) ([]byte, error) {
	got, err := decodeTOML(updated)
	if err != nil || !reflect.DeepEqual(dropEmptyServers(got), dropEmptyServers(want)) {
		return nil, fmt.Errorf("%w: megagit's [mcp_servers.%s] is not written as a table of its own", errUnsafe, MCPServerName)
	}
	return updated, nil
}

func dropEmptyServers(m map[string]any) map[string]any {
	if s, ok := m["mcp_servers"].(map[string]any); ok && len(s) == 0 {
		delete(m, "mcp_servers")
	}
	return m
}

// cloneTOML copies a decoded document deeply enough to edit its
// mcp_servers table.
func cloneTOML(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if s, ok := m["mcp_servers"].(map[string]any); ok {
		c := make(map[string]any, len(s))
		for k, v := range s {
			c[k] = v
		}
		out["mcp_servers"] = c
	}
	return out
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
