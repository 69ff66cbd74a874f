package adopt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/errkind"
	install "github.com/megagit/megagit/hook/install"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/workspace"
)

// Adopt works through the agents' own per-skill switches, never by moving
// a file: each skill megagit routes is hidden from its agent's listing by
// a setting of that agent (Claude Code's skillOverrides, Gemini CLI's
// skills.disabled, and when asked Codex's [[skills.config]] enabled =
// false, which takes the user's $NAME away too), written into the settings
// file of the skill's scope (Codex's: the user's ~/.codex/config.toml,
// the one layer whose skills.config it reads), and journaled in
// HiddenFile of the registry of that scope (the project's
// for a project's skills, the user registry for personal ones), so that
// restore removes exactly what adopt wrote and megagit knows which of an
// agent's switches are its own (a switch the user set is the user's
// choice: megagit then never injects the skill either).

// maxBefore bounds the copy of a settings file a record keeps.
const maxBefore = 256 << 10

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// HiddenSwitch is a switch as adopt and restore report it.
type HiddenSwitch struct {
	workspace.Hidden
	// Path is the settings file, absolute; SkillPath the SKILL.md.
	Path      string `json:"path"`
	SkillPath string `json:"skill_path"`
	// Note says why restore left a switch the user changed since.
	Note string `json:"note,omitempty"`
}

// agentSwitch is how one agent's switch is read and written, for the
// skill key selects (Hidden.key).
type agentSwitch struct {
	value string
	// get says whether data sets the switch of key, and to what.
	get func(data []byte, key string) (string, error)
	set func(data []byte, key string) ([]byte, error)
	del func(data []byte, key string) ([]byte, error)
	// empty says a file the switch's removal leaves holds nothing.
	empty func(data []byte) bool
}

func emptyJSON(data []byte) bool { return strings.TrimSpace(string(data)) == "{}" }

var switches = map[string]agentSwitch{
	"claude": {
		value: install.ClaudeHidden,
		get:   install.ClaudeOverride,
		set: func(data []byte, name string) ([]byte, error) {
			return install.SetClaudeOverride(data, name, install.ClaudeHidden)
		},
		del:   install.RemoveClaudeOverride,
		empty: emptyJSON,
	},
	"gemini": {
		value: geminiHidden,
		get: func(data []byte, name string) (string, error) {
			list, err := install.GeminiDisabled(data)
			for _, n := range list {
				if strings.EqualFold(n, name) {
					return geminiHidden, err
				}
			}
			return "", err
		},
		set:   install.AddGeminiDisabled,
		del:   install.RemoveGeminiDisabled,
		empty: emptyJSON,
	},
	// Written only when asked (Options.CodexDisable): Codex's one
	// per-skill switch takes the skill's $NAME away from the user too.
	"codex": {
		value: install.CodexOff,
		get:   install.CodexSkillSwitch,
		set:   install.AddCodexSkillOff,
		del:   install.RemoveCodexSkillOff,
		empty: func(data []byte) bool { return strings.TrimSpace(string(data)) == "" },
	},
}

const geminiHidden = "disabled"

func sameSwitch(a, b workspace.Hidden) bool {
	return a.Agent == b.Agent && a.Scope == b.Scope && a.File == b.File && strings.EqualFold(a.Name, b.Name) && a.Key == b.Key
}

// writeSwitches replaces the journal (atomic, durable).
func (w *space) writeSwitches(all []workspace.Hidden) error {
	if all == nil {
		all = []workspace.Hidden{}
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := local.MkdirAll(w.Reg.LocalDir()); err != nil {
		return err
	}
	return local.WriteFileAtomic(w.HiddenPath(), append(data, '\n'), 0o600)
}

// journalSwitch writes h in place of the record of its switch, else at
// the end; drop (h with drop set) removes that record.
func (w *space) journalSwitch(h workspace.Hidden, drop bool) error {
	all, err := w.Switches()
	if err != nil {
		return err
	}
	out := all[:0]
	found := false
	for _, x := range all {
		if sameSwitch(x, h) {
			found = true
			if drop {
				continue
			}
			x = h
		}
		out = append(out, x)
	}
	if !found && !drop {
		out = append(out, h)
	}
	return w.writeSwitches(out)
}

// switchState reads the settings file of h: whether it now says what adopt
// wrote, and the value it has.
func switchState(file string, h workspace.Hidden) (ours bool, now string, err error) {
	_, data, err := install.ReadSettings(file)
	if err != nil {
		return false, "", err
	}
	now, err = switches[h.Agent].get(data, h.Selector())
	if err != nil {
		return false, "", fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, file, err)
	}
	return now == h.Value, now, nil
}

// applySwitch sets (on) or removes the switch of h in its settings file,
// and says what it wrote: on, h with Before and After set. Off, a file
// still as adopt left it gets Before back; a file adopt created is removed
// when nothing else is left in it.
func applySwitch(file string, h workspace.Hidden, on bool) (workspace.Hidden, error) {
	target, data, err := install.ReadSettings(file)
	if err != nil {
		return h, err
	}
	sw := switches[h.Agent]
	var updated []byte
	switch {
	case on:
		updated, err = sw.set(data, h.Selector())
	case !h.Chained && h.After != "" && sum(data) == h.After && (h.Before != "" || h.Created):
		if h.Created && h.Before == "" {
			if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return h, err
			}
			return h, nil
		}
		updated = []byte(h.Before)
	default:
		updated, err = sw.del(data, h.Selector())
	}
	if err != nil {
		return h, fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, file, err)
	}
	if on {
		h.After = sum(updated)
		if !h.Chained {
			h.Before = ""
			if len(data) <= maxBefore {
				h.Before = string(data)
			}
		}
	}
	if string(updated) == string(data) {
		return h, nil
	}
	if !on && h.Created && sw.empty(updated) {
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return h, err
		}
		return h, nil
	}
	if err := local.MkdirAll(filepath.Dir(target)); err != nil {
		return h, err
	}
	return h, install.WriteSettings(target, updated)
}

// lastFor is the newest record of the journal all for the settings file
// of h (nil when there is none).
func lastFor(all []workspace.Hidden, h workspace.Hidden) *workspace.Hidden {
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Agent == h.Agent && all[i].File == h.File && (h.Agent == "codex" || all[i].Scope == h.Scope) {
			return &all[i]
		}
	}
	return nil
}

// restoreChain puts the file of a chain of switches (newest first in
// chain, the last one its start) back as the start found it: its Before,
// or no file when it created it; false when the start keeps neither.
func restoreChain(file string, start workspace.Hidden) (bool, error) {
	target, _, err := install.ReadSettings(file)
	if err != nil {
		return false, err
	}
	switch {
	case start.Before != "":
		return true, install.WriteSettings(target, []byte(start.Before))
	case start.Created:
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// recoverSwitches finishes the switch steps a kill interrupted (the caller
// holds the adopt lock): a switch being written stays when the file has
// it, else its record goes; one being removed is removed. What it did.
func (w *space) recoverSwitches() ([]string, error) {
	all, err := w.Switches()
	if err != nil {
		return nil, err
	}
	notes, all, err := w.recoverChains(all)
	if err != nil {
		return notes, err
	}
	for _, h := range all {
		if h.State == "" {
			continue
		}
		base, err := w.SettingsBase(h)
		if err != nil {
			return notes, err
		}
		file := filepath.Join(base, filepath.FromSlash(h.File))
		ours, _, err := switchState(file, h)
		if err != nil {
			return notes, err
		}
		switch {
		case h.State == workspace.StateHiding && ours:
			h.State = ""
			if _, data, err := install.ReadSettings(file); err == nil && h.After == "" {
				h.After = sum(data) // a kill between the write and its record
			}
			err = w.journalSwitch(h, false)
			notes = append(notes, fmt.Sprintf("%s: hidden from %s's listing (%s)", h.Name, agentName(h.Agent), workspace.Describe(file)))
		case h.State == workspace.StateHiding:
			err = w.journalSwitch(h, true)
			notes = append(notes, fmt.Sprintf("%s: not hidden: the adopt was undone", h.Name))
		default:
			if ours {
				if _, err = applySwitch(file, h, false); err != nil {
					return notes, err
				}
			}
			err = w.journalSwitch(h, true)
			notes = append(notes, fmt.Sprintf("%s: back in %s's listing (%s)", h.Name, agentName(h.Agent), workspace.Describe(file)))
		}
		if err != nil {
			return notes, err
		}
	}
	return notes, nil
}

// recoverChains finishes the restores of whole chains a kill interrupted
// (restore marks a chain being shown in one write, then writes the file):
// for each settings file whose records being shown are a chain's start and
// the switches chained to it, a file still as the newest of them left it
// gets the start's Before back, and a file already back loses them from
// the journal. What is left is all, without them.
func (w *space) recoverChains(all []workspace.Hidden) ([]string, []workspace.Hidden, error) {
	var notes []string
	byFile := map[string][]int{}
	var files []string
	for i, h := range all {
		if h.State != workspace.StateShowing {
			continue
		}
		base, err := w.SettingsBase(h)
		if err != nil {
			return notes, all, err
		}
		file := filepath.Join(base, filepath.FromSlash(h.File))
		if byFile[file] == nil {
			files = append(files, file)
		}
		byFile[file] = append(byFile[file], i)
	}
	drop := map[int]bool{}
	for _, file := range files {
		idx := byFile[file]
		start, last := all[idx[0]], all[idx[len(idx)-1]]
		if len(idx) < 2 || start.Chained || start.Before == "" && !start.Created {
			continue
		}
		chain := true
		for _, i := range idx[1:] {
			chain = chain && all[i].Chained
		}
		if !chain {
			continue
		}
		now := fileSum(file)
		_, statErr := os.Stat(file)
		back := start.Before != "" && now == sum([]byte(start.Before)) || start.Before == "" && errors.Is(statErr, fs.ErrNotExist)
		switch {
		case back:
		case now == last.After:
			if _, err := restoreChain(file, start); err != nil {
				return notes, all, err
			}
		default:
			continue // edited since: each key is removed below
		}
		for _, i := range idx {
			drop[i] = true
			notes = append(notes, fmt.Sprintf("%s: back in %s's listing (%s)", all[i].Name, agentName(all[i].Agent), workspace.Describe(file)))
		}
	}
	if len(drop) == 0 {
		return notes, all, nil
	}
	var keep []workspace.Hidden
	for i, h := range all {
		if !drop[i] {
			keep = append(keep, h)
		}
	}
	return notes, keep, w.writeSwitches(keep)
}

// agentName is an agent as people call it.
func agentName(agent string) string {
	switch agent {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex"
	case "gemini":
		return "Gemini CLI"
	}
	return agent
}
