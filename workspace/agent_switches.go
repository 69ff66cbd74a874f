package workspace

import (
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

// The agents' own per-skill switches as the catalog reads them: which
// skills a settings file keeps from the model, and which of those
// switches `megagit adopt` wrote (package workspace/adopt, which writes
// and journals them in HiddenFile). A switch adopt wrote does not keep
// megagit from routing the skill: that is what it is for; one the user
// set is the user's choice, and megagit then never injects the skill
// either.

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

// Selector is what selects h's skill in its settings file: Key, else Name.
func (h Hidden) Selector() string {
	if h.Key != "" {
		return h.Key
	}
	return h.Name
}

// HiddenPath is the journal of the switches this registry's adopt wrote.
func (w *Workspace) HiddenPath() string { return filepath.Join(w.Reg.LocalDir(), HiddenFile) }

// Switches lists the switches adopt wrote from this registry.
func (w *Workspace) Switches() ([]Hidden, error) {
	p := w.HiddenPath()
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
		if h.Agent != "claude" && h.Agent != "codex" && h.Agent != "gemini" {
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

// SettingsBase is the folder h's File is relative to: Codex's is the
// home folder whatever the scope (it reads skills.config from the user's
// config.toml only), the others' the base of h's scope.
func (w *Workspace) SettingsBase(h Hidden) (string, error) {
	if h.Agent == "codex" {
		return w.SwitchBase(KindUser)
	}
	return w.SwitchBase(h.Scope)
}

// SwitchBase is the folder a switch's Skill (and, but for Codex, File) is
// relative to: the project's work tree or the home folder.
func (w *Workspace) SwitchBase(scope string) (string, error) {
	if scope == KindUser {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", fmt.Errorf("%w: no home folder for the agents' user settings", errkind.ErrInvalid)
		}
		return home, nil
	}
	return w.Reg.WorkTree(), nil
}

// AdoptRegistries are the registries whose journals adopt and restore
// read from here: this one and the user registry.
func (w *Workspace) AdoptRegistries() []*Workspace {
	out := []*Workspace{w}
	if u, err := w.Personal(); err == nil && u != nil {
		out = append(out, u)
	}
	return out
}

// ownSwitches are the switches adopt wrote that apply here (this
// registry's and the user registry's), by agent and lower-case name (for
// Codex: Key, the SKILL.md), with the absolute settings file each is in.
func (w *Workspace) ownSwitches() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, ws := range w.AdoptRegistries() {
		all, err := ws.Switches()
		if err != nil {
			continue // doctor names the file
		}
		for _, h := range all {
			base, err := ws.SettingsBase(h)
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

// ClaudeSettingsFiles are Claude Code's settings files that apply here,
// in its precedence, highest first: the project's local and shared ones,
// then the user's.
func (w *Workspace) ClaudeSettingsFiles() []string {
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
	for _, f := range w.ClaudeSettingsFiles() {
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

// codexOff are the [[skills.config]] entries of the Codex config.toml
// that applies (CODEX_HOME's, else ~/.codex/config.toml), which turn
// skills off for the model and the user alike.
type codexOff struct {
	file  string // as described
	rules []install.CodexSkillRule
}

// codexRules reads Codex's config.toml; one that cannot be read, or whose
// skills.config Codex would refuse, is a problem naming it.
func (w *Workspace) codexRules() (codexOff, []error) {
	if !w.Cfg.Sources.Codex {
		return codexOff{}, nil
	}
	f := install.CodexUserConfig()
	if f == "" {
		return codexOff{}, nil
	}
	_, data, err := install.ReadSettings(f)
	if err != nil {
		return codexOff{}, []error{fmt.Errorf("%s: %w", describe(f), err)}
	}
	rules, err := install.CodexSkillRules(data)
	if err != nil {
		return codexOff{}, []error{fmt.Errorf("%s: %w", describe(f), err)}
	}
	return codexOff{file: describe(f), rules: rules}, nil
}

// off says whether the user's entries turn the skill at abs named name
// off (megagit's own, adopt's, do not count: own are their SKILL.md paths).
func (c codexOff) off(abs, name string, own map[string]string) bool {
	if len(c.rules) == 0 {
		return false
	}
	rules := c.rules
	if len(own) > 0 {
		rules = nil
		for _, r := range c.rules {
			if !r.Enabled && r.Name == "" && r.Path != "" && own[install.CanonicalPath(r.Path)] != "" {
				continue
			}
			rules = append(rules, r)
		}
	}
	return install.CodexDisabled(rules, install.CanonicalPath(abs), name)
}

// codexReads says whether Codex reads the native folder dir: .agents/skills
// (a project's and the user's) and the older ~/.codex/skills.
func codexReads(dir string) bool {
	d := filepath.ToSlash(dir)
	return strings.HasSuffix(d, "/.agents/skills") || strings.HasSuffix(d, "/.codex/skills")
}
