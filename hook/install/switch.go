package install

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The agents' own per-skill switches, which `megagit adopt` sets so an
// agent's listing of skills no longer carries the ones megagit routes,
// and `adopt --restore` takes away again. Each edit keeps every other key
// of the settings file in its order.

// ClaudeHidden is the value of Claude Code's skillOverrides that adopt
// writes: the skill leaves the model's listing, its /NAME command stays.
// Claude Code (2.1.332) keys skillOverrides by a skill's full name, and
// ignores it for a plugin's skill (plugin:skill) under any key, so adopt
// writes none for those.
const ClaudeHidden = "user-invocable-only"

// ClaudeOverride is skillOverrides[name] of a Claude Code settings file
// ("" when the file or the key is not there).
func ClaudeOverride(data []byte, name string) (string, error) {
	_, over, err := openOverrides(data)
	if err != nil {
		return "", err
	}
	raw, ok := over.vals[name]
	if !ok {
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("field skillOverrides.%s: not a string", name)
	}
	return v, nil
}

// ClaudeOverrides is the whole skillOverrides object of a Claude Code
// settings file, by skill name; a value that is not a string is an error
// naming it.
func ClaudeOverrides(data []byte) (map[string]string, error) {
	_, over, err := openOverrides(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(over.keys))
	for _, k := range over.keys {
		var v string
		if err := json.Unmarshal(over.vals[k], &v); err != nil {
			return nil, fmt.Errorf("field skillOverrides.%s: not a string", k)
		}
		out[k] = v
	}
	return out, nil
}

// SetClaudeOverride sets skillOverrides[name] to value in a Claude Code
// settings file (empty: a new one).
func SetClaudeOverride(data []byte, name, value string) ([]byte, error) {
	root, over, err := openOverrides(data)
	if err != nil {
		return nil, err
	}
	over.set(name, mustJSON(value))
	root.set("skillOverrides", over.marshal())
	return format(root.marshal())
}

// RemoveClaudeOverride removes skillOverrides[name], and skillOverrides
// when that leaves it empty.
func RemoveClaudeOverride(data []byte, name string) ([]byte, error) {
	root, over, err := openOverrides(data)
	if err != nil {
		return nil, err
	}
	over.del(name)
	if len(over.keys) == 0 {
		root.del("skillOverrides")
	} else {
		root.set("skillOverrides", over.marshal())
	}
	return format(root.marshal())
}

func openOverrides(data []byte) (root, over *object, err error) {
	return openChild(data, "skillOverrides")
}

// openChild parses a settings file (empty: {}) and its object key (absent:
// a new, empty one).
func openChild(data []byte, key string) (root, child *object, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if root, err = parseObject(data); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %v", err)
	}
	child = &object{vals: map[string]json.RawMessage{}}
	if raw, ok := root.vals[key]; ok && string(bytes.TrimSpace(raw)) != "null" {
		if child, err = parseObject(raw); err != nil {
			return nil, nil, fmt.Errorf("field %s: not an object: %v", key, err)
		}
	}
	return root, child, nil
}

// GeminiDisabled is the skills.disabled list of a Gemini CLI settings
// file.
func GeminiDisabled(data []byte) ([]string, error) {
	_, skills, err := openChild(data, "skills")
	if err != nil {
		return nil, err
	}
	return geminiList(skills)
}

func geminiList(skills *object) ([]string, error) {
	raw, ok := skills.vals["disabled"]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("field skills.disabled: must be a list of skill names")
	}
	return out, nil
}

// AddGeminiDisabled adds name to skills.disabled of a Gemini CLI
// settings file (empty: a new one), unless it is there.
func AddGeminiDisabled(data []byte, name string) ([]byte, error) {
	root, skills, err := openChild(data, "skills")
	if err != nil {
		return nil, err
	}
	list, err := geminiList(skills)
	if err != nil {
		return nil, err
	}
	for _, n := range list {
		if n == name {
			return format(root.marshal())
		}
	}
	skills.set("disabled", mustJSON(append(list, name)))
	root.set("skills", skills.marshal())
	return format(root.marshal())
}

// RemoveGeminiDisabled removes name from skills.disabled, the list when
// that empties it, and skills when that leaves it empty.
func RemoveGeminiDisabled(data []byte, name string) ([]byte, error) {
	root, skills, err := openChild(data, "skills")
	if err != nil {
		return nil, err
	}
	list, err := geminiList(skills)
	if err != nil {
		return nil, err
	}
	keep := []string{}
	for _, n := range list {
		if n != name {
			keep = append(keep, n)
		}
	}
	switch {
	case len(keep) == len(list):
		return format(root.marshal())
	case len(keep) > 0:
		skills.set("disabled", mustJSON(keep))
	default:
		skills.del("disabled")
	}
	if len(skills.keys) == 0 {
		root.del("skills")
	} else {
		root.set("skills", skills.marshal())
	}
	return format(root.marshal())
}

// ReadSettings reads an agent's settings file (none: empty), following a
// symlink to the file it names, which is the one to write (WriteSettings).
func ReadSettings(path string) (target string, data []byte, err error) {
	return readSettings(path)
}

// WriteSettings replaces a settings file atomically, keeping its mode.
func WriteSettings(path string, data []byte) error { return writeSettings(path, data) }
