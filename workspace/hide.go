package workspace

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

// HiddenFile, in a registry's local folder (never committed: it names
// settings files of this machine), lists the switches adopt wrote.
const HiddenFile = "hidden.json"

// The steps of a switch in flight (Hidden.State), journaled before the
// settings file is written: a kill leaves one, and recovery finishes it.
const (
	StateHiding  = "hiding"
	StateShowing = "showing"
)

// Hidden is one switch adopt wrote: the skill Name is kept from Agent's
// own listing by Value at Name in the settings File.
type Hidden struct {
	Agent string `json:"agent"`
	Scope string `json:"scope"` // KindProject or KindUser
	Name  string `json:"name"`
	// File is the settings file, slash-separated, relative to the
	// project's work tree (scope project) or the home folder (scope user);
	// Codex's is always relative to the home folder.
	File string `json:"file"`
	// Value is what adopt wrote: Claude Code's skillOverrides value; for
	// Gemini CLI "disabled" (the name in skills.disabled); for Codex
	// "enabled = false".
	Value string `json:"value"`
	// Skill is the SKILL.md it hides, relative to the project's work tree
	// or the home folder (by Scope).
	Skill string `json:"skill"`
	// Key is what selects the skill in File when it is not Name: for
	// Codex the SKILL.md's absolute path, symlinks resolved (the path
	// selector of its [[skills.config]] entry).
	Key string `json:"key,omitempty"`
	// Created says adopt created File: restore removes it when nothing
	// else is left in it.
	Created bool `json:"created,omitempty"`
	// Before is the file as it was before adopt wrote this switch, and
	// After the sha256 of what adopt wrote: while the file is still what
	// adopt wrote, restore puts Before back byte for byte (the user's
	// formatting too); once someone edited it, restore removes the one key.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Chained says adopt wrote this switch into the file exactly as the
	// record before it for the same file left it (its After): it keeps no
	// Before of its own, and restore takes the chain back to the Before of
	// its first record in one write. Without it, a run that hides hundreds
	// of skills in one file would keep hundreds of copies of that file.
	Chained bool   `json:"chained,omitempty"`
	State   string `json:"state,omitempty"`
}

// maxJournal bounds hidden.json: a few hundred bytes a switch, and a copy
// of a settings file where a chain of them starts (one adopt of an older
// megagit kept a copy in every record).
const maxJournal = 64 << 20

// maxBefore bounds the copy of a settings file a record keeps.
const maxBefore = 256 << 10

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// HiddenSwitch is a switch as adopt and restore report it.
type HiddenSwitch struct {
	Hidden
	// Path is the settings file, absolute; SkillPath the SKILL.md.
	Path      string `json:"path"`
	SkillPath string `json:"skill_path"`
	// Note says why restore left a switch the user changed since.
	Note string `json:"note,omitempty"`
}

// key is what selects h's skill in its settings file.
func (h Hidden) key() string {
	if h.Key != "" {
		return h.Key
	}
	return h.Name
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
	// Written only when asked (AdoptOptions.CodexDisable): Codex's one
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

// hiddenPath is the journal of the switches this registry's adopt wrote.
func (w *Workspace) hiddenPath() string { return filepath.Join(w.Reg.LocalDir(), HiddenFile) }

// Switches lists the switches adopt wrote from this registry.
func (w *Workspace) Switches() ([]Hidden, error) {
	p := w.hiddenPath()
	data, err := local.ReadRegular(p, maxJournal)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Hidden
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (it lists the agents' settings `megagit adopt --restore` takes back)", errkind.ErrInvalid, p, err)
	}
	for i, h := range out {
		if _, ok := switches[h.Agent]; !ok {
			return nil, fmt.Errorf("%w: %s: entry %d: field agent: %q, want claude, codex or gemini", errkind.ErrInvalid, p, i+1, h.Agent)
		}
		if h.Scope != KindProject && h.Scope != KindUser {
			return nil, fmt.Errorf("%w: %s: entry %d: field scope: %q, want project or user", errkind.ErrInvalid, p, i+1, h.Scope)
		}
		if h.Name == "" {
			return nil, fmt.Errorf("%w: %s: entry %d: field name: empty", errkind.ErrInvalid, p, i+1)
		}
		if !filepath.IsLocal(filepath.FromSlash(h.File)) || path2agent(h.File) != h.Agent {
			return nil, fmt.Errorf("%w: %s: entry %d: field file: %q is not one of %s's settings files", errkind.ErrInvalid, p, i+1, h.File, h.Agent)
		}
		if h.Agent == "codex" && !filepath.IsAbs(h.Key) {
			return nil, fmt.Errorf("%w: %s: entry %d: field key: %q, want the skill's SKILL.md, absolute", errkind.ErrInvalid, p, i+1, h.Key)
		}
		if h.State != "" && h.State != StateHiding && h.State != StateShowing {
			return nil, fmt.Errorf("%w: %s: entry %d: field state: %q, want %s, %s or none", errkind.ErrInvalid, p, i+1, h.State, StateHiding, StateShowing)
		}
	}
	return out, nil
}

// path2agent is the agent whose settings file rel is ("" for none).
func path2agent(rel string) string {
	switch rel {
	case ".claude/settings.json", ".claude/settings.local.json":
		return "claude"
	case ".gemini/settings.json":
		return "gemini"
	case ".codex/config.toml":
		return "codex"
	}
	return ""
}

func sameSwitch(a, b Hidden) bool {
	return a.Agent == b.Agent && a.Scope == b.Scope && a.File == b.File && strings.EqualFold(a.Name, b.Name) && a.Key == b.Key
}

// writeSwitches replaces the journal (atomic, durable).
func (w *Workspace) writeSwitches(all []Hidden) error {
	if all == nil {
		all = []Hidden{}
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := local.MkdirAll(w.Reg.LocalDir()); err != nil {
		return err
	}
	return local.WriteFileAtomic(w.hiddenPath(), append(data, '\n'), 0o600)
}

// journalSwitch writes h in place of the record of its switch, else at
// the end; drop (h with drop set) removes that record.
func (w *Workspace) journalSwitch(h Hidden, drop bool) error {
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

// settingsBase is the folder h's File is relative to: Codex's is the
// home folder whatever the scope (it reads skills.config from the user's
// config.toml only), the others' the base of h's scope.
func (w *Workspace) settingsBase(h Hidden) (string, error) {
	if h.Agent == "codex" {
		return w.switchBase(KindUser)
	}
	return w.switchBase(h.Scope)
}

// switchBase is the folder a switch's Skill (and, but for Codex, File) is
// relative to: the project's work tree or the home folder.
func (w *Workspace) switchBase(scope string) (string, error) {
	if scope == KindUser {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", fmt.Errorf("%w: no home folder for the agents' user settings", errkind.ErrInvalid)
		}
		return home, nil
	}
	return w.Reg.WorkTree(), nil
}

// switchState reads the settings file of h: whether it now says what adopt
// wrote, and the value it has.
func switchState(file string, h Hidden) (ours bool, now string, err error) {
	_, data, err := install.ReadSettings(file)
	if err != nil {
		return false, "", err
	}
	now, err = switches[h.Agent].get(data, h.key())
	if err != nil {
		return false, "", fmt.Errorf("%w: %s: %v", errkind.ErrInvalid, file, err)
	}
	return now == h.Value, now, nil
}

// applySwitch sets (on) or removes the switch of h in its settings file,
// and says what it wrote: on, h with Before and After set. Off, a file
// still as adopt left it gets Before back; a file adopt created is removed
// when nothing else is left in it.
func applySwitch(file string, h Hidden, on bool) (Hidden, error) {
	target, data, err := install.ReadSettings(file)
	if err != nil {
		return h, err
	}
	sw := switches[h.Agent]
	var updated []byte
	switch {
	case on:
		updated, err = sw.set(data, h.key())
	case !h.Chained && h.After != "" && sum(data) == h.After && (h.Before != "" || h.Created):
		if h.Created && h.Before == "" {
			if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return h, err
			}
			return h, nil
		}
		updated = []byte(h.Before)
	default:
		updated, err = sw.del(data, h.key())
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
func lastFor(all []Hidden, h Hidden) *Hidden {
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
func restoreChain(file string, start Hidden) (bool, error) {
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
func (w *Workspace) recoverSwitches() ([]string, error) {
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
		base, err := w.settingsBase(h)
		if err != nil {
			return notes, err
		}
		file := filepath.Join(base, filepath.FromSlash(h.File))
		ours, _, err := switchState(file, h)
		if err != nil {
			return notes, err
		}
		switch {
		case h.State == StateHiding && ours:
			h.State = ""
			if _, data, err := install.ReadSettings(file); err == nil && h.After == "" {
				h.After = sum(data) // a kill between the write and its record
			}
			err = w.journalSwitch(h, false)
			notes = append(notes, fmt.Sprintf("%s: hidden from %s's listing (%s)", h.Name, agentName(h.Agent), describe(file)))
		case h.State == StateHiding:
			err = w.journalSwitch(h, true)
			notes = append(notes, fmt.Sprintf("%s: not hidden: the adopt was undone", h.Name))
		default:
			if ours {
				if _, err = applySwitch(file, h, false); err != nil {
					return notes, err
				}
			}
			err = w.journalSwitch(h, true)
			notes = append(notes, fmt.Sprintf("%s: back in %s's listing (%s)", h.Name, agentName(h.Agent), describe(file)))
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
func (w *Workspace) recoverChains(all []Hidden) ([]string, []Hidden, error) {
	var notes []string
	byFile := map[string][]int{}
	var files []string
	for i, h := range all {
		if h.State != StateShowing {
			continue
		}
		base, err := w.settingsBase(h)
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
			notes = append(notes, fmt.Sprintf("%s: back in %s's listing (%s)", all[i].Name, agentName(all[i].Agent), describe(file)))
		}
	}
	if len(drop) == 0 {
		return notes, all, nil
	}
	var keep []Hidden
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

// ownSwitches are the switches adopt wrote that apply here (this
// registry's and the user registry's), by agent and lower-case name (for
// Codex: Key, the SKILL.md), with the absolute settings file each is in.
func (w *Workspace) ownSwitches() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, ws := range w.adoptRegistries() {
		all, err := ws.Switches()
		if err != nil {
			continue // doctor names the file
		}
		for _, h := range all {
			base, err := ws.settingsBase(h)
			if err != nil || h.State == StateHiding {
				continue
			}
			if out[h.Agent] == nil {
				out[h.Agent] = map[string]string{}
			}
			key := strings.ToLower(h.Name)
			if h.Agent == "codex" {
				key = h.Key // a path: two projects' skills may share a name
			}
			out[h.Agent][key] = filepath.Join(base, filepath.FromSlash(h.File))
		}
	}
	return out
}

// claudeSettingsFiles are Claude Code's settings files that apply here,
// in its precedence, highest first: the project's local and shared ones,
// then the user's.
func (w *Workspace) claudeSettingsFiles() []string {
	out := []string{
		filepath.Join(w.Reg.WorkTree(), ".claude", "settings.local.json"),
		filepath.Join(w.Reg.WorkTree(), ".claude", "settings.json"),
	}
	if w.Cfg.Sources.User {
		if home, err := os.UserHomeDir(); err == nil && home != "" {
			out = append(out, filepath.Join(home, ".claude", "settings.json"))
		}
	}
	return out
}

// claudeSwitch is a skillOverrides value that keeps a skill from the
// model, and the settings file that says it.
type claudeSwitch struct{ value, file string }

// claudeOff are the skills Claude Code's skillOverrides keep from the
// model ("off", "user-invocable-only"), by name, each from the file of
// highest precedence that sets it; a file that cannot be read is a
// problem naming it.
func (w *Workspace) claudeOff() (map[string]claudeSwitch, []error) {
	out := map[string]claudeSwitch{}
	if !w.Cfg.Sources.Claude {
		return out, nil
	}
	var problems []error
	seen := map[string]bool{}
	for _, f := range w.claudeSettingsFiles() {
		_, data, err := install.ReadSettings(f)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", describe(f), err))
			continue
		}
		if len(data) == 0 {
			continue
		}
		over, err := install.ClaudeOverrides(data)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", describe(f), err))
			continue
		}
		for name, v := range over {
			if seen[name] {
				continue // a file of higher precedence set it
			}
			seen[name] = true
			if v == "off" || v == install.ClaudeHidden {
				out[name] = claudeSwitch{v, f}
			}
		}
	}
	return out, problems
}
