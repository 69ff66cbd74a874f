package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/megagit/megagit/hook"
)

// mcpJSONEntry is megagit's server in agent's "mcpServers" object: Claude
// Code writes "type": "stdio" for a local server, Gemini CLI infers the
// transport from "command", Copilot CLI's "local" server names the tools
// it offers ("*": all).
func mcpJSONEntry(argv []string, agent string) json.RawMessage {
	e := &object{vals: map[string]json.RawMessage{}}
	switch agent {
	case hook.AgentClaude:
		e.set("type", mustJSON("stdio"))
	case hook.AgentCopilot:
		e.set("type", mustJSON("local"))
	}
	e.set("command", mustJSON(argv[0]))
	e.set("args", mustJSON(append([]string{}, argv[1:]...)))
	if agent == hook.AgentCopilot {
		e.set("tools", mustJSON([]string{"*"}))
	}
	return e.marshal()
}

// MergeMCPJSON sets "mcpServers"."megagit" in a JSON settings file (empty
// = a new file) to run argv, keeping every other key in its order. An
// entry of ours that already runs argv is kept as it is (with any keys the
// user added to it).
func MergeMCPJSON(data []byte, argv []string, agent string) ([]byte, error) {
	root, servers, err := openMCPServers(data)
	if err != nil {
		return nil, err
	}
	if raw, ok := servers.vals[MCPServerName]; ok {
		var cur struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if json.Unmarshal(raw, &cur) == nil && cur.Command == argv[0] && slices.Equal(cur.Args, argv[1:]) {
			return format(root.marshal())
		}
	}
	servers.set(MCPServerName, mcpJSONEntry(argv, agent))
	root.set("mcpServers", servers.marshal())
	return format(root.marshal())
}

// RemoveMCPJSON removes "mcpServers"."megagit", and "mcpServers" if that
// leaves it empty.
func RemoveMCPJSON(data []byte) ([]byte, error) {
	root, servers, err := openMCPServers(data)
	if err != nil {
		return nil, err
	}
	if _, ok := servers.vals[MCPServerName]; !ok {
		return format(root.marshal())
	}
	servers.del(MCPServerName)
	if len(servers.keys) == 0 {
		root.del("mcpServers")
	} else {
		root.set("mcpServers", servers.marshal())
	}
	return format(root.marshal())
}

func openMCPServers(data []byte) (root, servers *object, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if root, err = parseObject(data); err != nil {
		return nil, nil, fmt.Errorf("settings file: %w", err)
	}
	servers = &object{vals: map[string]json.RawMessage{}}
	if raw, ok := root.vals["mcpServers"]; ok {
		if servers, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf("settings file: \"mcpServers\": %w", err)
		}
	}
	return root, servers, nil
}
