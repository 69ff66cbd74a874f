package install

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// copilotHome is Copilot CLI's own folder: $COPILOT_HOME when set
// (absolute), as Copilot reads it, else ~/.copilot.
func copilotHome(home string) string {
	if h := os.Getenv("COPILOT_HOME"); h != "" && filepath.IsAbs(h) {
		return h
	}
	return filepath.Join(home, ".copilot")
}

// copilotHandler is the part of a Copilot CLI hook handler megagit reads.
type copilotHandler struct {
	Bash string `json:"bash"`
}

// MergeCopilot merges entries into a Copilot CLI hooks file
// ({"version": 1, "hooks": {EVENT: [{"type": "command", "bash",
// "timeoutSec"}]}}: a flat list of handlers per event, no groups), keeping
// every handler not ours; one of ours that runs the same command is kept,
// an outdated one replaced.
func MergeCopilot(data []byte, entries []Entry) ([]byte, error) {
	root, hooks, err := openHooks(data)
	if err != nil {
		return nil, err
	}
	if _, ok := root.vals["version"]; !ok {
		root.set("version", mustJSON(1))
	}
	for _, e := range entries {
		list, err := rawArray(hooks.vals[e.Event], "hooks."+e.Event)
		if err != nil {
			return nil, err
		}
		kind := ourKind(e.Command)
		found := false
		var kept []json.RawMessage
		for _, h := range list {
			var hd copilotHandler
			if json.Unmarshal(h, &hd) != nil || !IsOurs(hd.Bash) || ourKind(hd.Bash) != kind {
				kept = append(kept, h)
				continue
			}
			if !found && hd.Bash == e.Command {
				found = true
				kept = append(kept, h)
			}
		}
		if !found {
			h := &object{vals: map[string]json.RawMessage{}}
			h.set("type", mustJSON("command"))
			h.set("bash", mustJSON(e.Command))
			if e.Timeout > 0 {
				h.set("timeoutSec", mustJSON(e.Timeout))
			}
			kept = append(kept, h.marshal())
		}
		hooks.set(e.Event, marshalArray(kept))
	}
	root.set("hooks", hooks.marshal())
	return format(root.marshal())
}

// RemoveCopilot removes megagit's handlers from a Copilot CLI hooks file,
// then the events they leave empty; nil when nothing but the version is
// left (the file was megagit's alone: uninstall deletes it).
func RemoveCopilot(data []byte) ([]byte, error) {
	root, hooks, err := openHooks(data)
	if err != nil {
		return nil, err
	}
	for _, ev := range append([]string(nil), hooks.keys...) {
		list, err := rawArray(hooks.vals[ev], "hooks."+ev)
		if err != nil {
			continue
		}
		var kept []json.RawMessage
		for _, h := range list {
			var hd copilotHandler
			if json.Unmarshal(h, &hd) != nil || !IsOurs(hd.Bash) {
				kept = append(kept, h)
			}
		}
		switch {
		case len(kept) == len(list):
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
	if len(root.keys) == 0 || len(root.keys) == 1 && root.keys[0] == "version" {
		return nil, nil
	}
	return format(root.marshal())
}

// copilotEntries are megagit's hooks for Copilot CLI (its camelCase
// events, whose payloads hook.Input reads): sessionStart -> hook
// session-start; userPromptSubmitted -> hook prompt (its
// additionalContext reaches the model with the prompt); agentStop (end
// of every turn, with transcriptPath) and sessionEnd -> hook stop.
// Timeouts in seconds.
func copilotEntries(prompt, start, stop string) []Entry {
	return []Entry{
		{Event: "sessionStart", Command: start, Timeout: 10},
		{Event: "userPromptSubmitted", Command: prompt, Timeout: 10},
		{Event: "agentStop", Command: stop, Timeout: 60},
		{Event: "sessionEnd", Command: stop, Timeout: 60},
	}
}
