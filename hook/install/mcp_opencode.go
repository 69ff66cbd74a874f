package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// opencodeMCP is megagit's server in opencode's config ("mcp" in
// opencode.json: {"type": "local", "command": [argv...], "enabled": true},
// opencode.ai/docs/mcp-servers).
func opencodeMCP(argv []string) json.RawMessage {
	e := &object{vals: map[string]json.RawMessage{}}
	e.set("type", mustJSON("local"))
	e.set("command", mustJSON(argv))
	e.set("enabled", mustJSON(true))
	return e.marshal()
}

// openOpencodeMCP reads opencode.json (empty: a new file) and its "mcp".
// opencode also reads JSON with comments (JSONC), which megagit does not
// edit: such a file is errUnsafe, and the user gets the entry to add.
func openOpencodeMCP(data []byte) (root, servers *object, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte(`{"$schema": "https://opencode.ai/config.json"}`)
	}
	if root, err = parseObject(data); err != nil {
		return nil, nil, fmt.Errorf("%w: %v (JSON with comments is not edited)", errUnsafe, err)
	}
	servers = &object{vals: map[string]json.RawMessage{}}
	if raw, ok := root.vals["mcp"]; ok {
		if servers, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf("\"mcp\": %w", err)
		}
	}
	return root, servers, nil
}

// MergeOpencodeMCP sets "mcp"."megagit" in opencode.json to run argv,
// keeping every other key; an entry that already runs argv is kept as is.
func MergeOpencodeMCP(data []byte, argv []string) ([]byte, error) {
	root, servers, err := openOpencodeMCP(data)
	if err != nil {
		return nil, err
	}
	if cur, ok, _ := opencodeMCPEntry(data); ok && slices.Equal(cur, argv) {
		return format(root.marshal())
	}
	servers.set(MCPServerName, opencodeMCP(argv))
	root.set("mcp", servers.marshal())
	return format(root.marshal())
}

// RemoveOpencodeMCP removes "mcp"."megagit", and "mcp" if that leaves it
// empty.
func RemoveOpencodeMCP(data []byte) ([]byte, error) {
	root, servers, err := openOpencodeMCP(data)
	if err != nil {
		return nil, err
	}
	if _, ok := servers.vals[MCPServerName]; ok {
		servers.del(MCPServerName)
		if len(servers.keys) == 0 {
			root.del("mcp")
		} else {
			root.set("mcp", servers.marshal())
		}
	}
	return format(root.marshal())
}

// opencodeMCPEntry is the command line of "mcp"."megagit" in opencode.json.
func opencodeMCPEntry(data []byte) (argv []string, ok bool, err error) {
	_, servers, err := openOpencodeMCP(data)
	if err != nil {
		return nil, false, err
	}
	raw, found := servers.vals[MCPServerName]
	if !found {
		return nil, false, nil
	}
	var s struct {
		Command []string `json:"command"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false, fmt.Errorf("\"mcp\".%q: %w", MCPServerName, err)
	}
	if len(s.Command) == 0 {
		return []string{""}, true, nil
	}
	return s.Command, true, nil
}
