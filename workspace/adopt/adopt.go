// Package adopt is `megagit adopt`: it flips the agents' own per-skill
// switches so their listings stop carrying the skills megagit routes,
// journals each switch, and `adopt --restore` takes them back; it also
// puts back the skills an earlier megagit's adopt moved into a registry,
// and finishes what a killed adopt or restore left (doctor --fix).
//
// Adopt works through the agents' own per-skill switches, never by moving
// a file: each skill megagit routes is hidden from its agent's listing by
// a setting of that agent (Claude Code's skillOverrides, Gemini CLI's
// skills.disabled, and when asked Codex's [[skills.config]] enabled =
// false, which takes the user's $NAME away too), written into the settings
// file of the skill's scope (Codex's: the user's ~/.codex/config.toml,
// the one layer whose skills.config it reads), and journaled in
// workspace.HiddenFile of the registry of that scope (the project's for a
// project's skills, the user registry for personal ones), so that restore
// removes exactly what adopt wrote and the catalog knows which of an
// agent's switches are megagit's own (workspace reads them; this package
// writes them).
package adopt

import (
	"path/filepath"
	"time"

	"github.com/megagit/megagit/workspace"
)

// space is a workspace as adopt acts on it: the registry whose journals
// it writes, with what the workspace reads of the agents' settings.
type space struct{ *workspace.Workspace }

func spaceOf(w *workspace.Workspace) *space { return &space{w} }

// abs is a registry-relative path of w's registry, absolute.
func (w *space) abs(rel string) string {
	return filepath.Join(w.Reg.Root(), filepath.FromSlash(rel))
}

// Adoption is one skill megagit took over from an agent's native folder,
// as the list of the registry holding it records it (AdoptedFile).
type Adoption struct {
	Name  string `json:"name"`
	Agent string `json:"agent"`
	Scope string `json:"scope"` // workspace.KindProject or workspace.KindUser
	// From is the skill's folder as the agent reads it, slash-separated:
	// relative to the project's work tree (scope project) or to the home
	// folder (scope user), so a moved project restores into its new
	// place. Records of earlier releases hold an absolute path.
	From string `json:"from"`
	// Root is set when the native folder was one of the registry's roots:
	// the skill moved within the registry, from that root.
	Root string `json:"root,omitempty"`
	// Backup is where the original folder was moved aside (a native
	// folder outside the registry's roots), relative to the registry's
	// root (absolute in earlier releases).
	Backup string `json:"backup,omitempty"`
	// Path is the skill's SKILL.md in the registry after adopt (before a
	// restore), registry-relative.
	Path   string `json:"path"`
	Commit string `json:"commit,omitempty"`
	// Key is the native key (registry.NativeKey) of the SKILL.md adopted:
	// the evidence it brought was recorded under it.
	Key string `json:"key,omitempty"`
	// Modes are the modes git does not keep, of the files that were not
	// 0644 (a script's executable bit), by path in the skill's folder, in
	// octal: restore gives them back.
	Modes map[string]string `json:"modes,omitempty"`
	// State is the step in flight, journaled before it happens:
	// StateAdopting or StateRestoring; "" once done.
	State string `json:"state,omitempty"`
}

// The steps of an adoption in flight (Adoption.State): a kill leaves the
// record in one of them, and Recover finishes or undoes it.
const (
	StateAdopting  = "adopting"
	StateRestoring = "restoring"
)

// Adopted is an adoption as adopt and restore report it.
type Adopted struct {
	Adoption
	// Dir is the skill's folder as the agent reads it, absolute.
	Dir string `json:"dir"`
	// Registry is the root of the registry holding it (adopt) or that
	// held it (restore).
	Registry string `json:"registry"`
	// Kept is the original adopt moved aside, kept after a restore
	// because it holds something the restored folder has in its place
	// (returnBackup); "" when it is gone.
	Kept string `json:"kept,omitempty"`
}

// Options choose the native folders: an agent ("" for all) and a
// scope: KindProject (the default in a project), KindUser (the default
// in the user registry) or "all".
type Options struct {
	Agent, Scope string
	DryRun       bool
	Now          time.Time
	// Except are the names of skills to leave in the agents' own
	// listings (`--except`).
	Except []string
	// Shared writes a project's Claude Code switches into its shared
	// .claude/settings.json, not this machine's settings.local.json.
	Shared bool
	// Allow are the audit rules whose high findings do not keep a skill
	// in the agents' own listings (`--allow`).
	Allow []string
	// CodexDisable writes Codex's switch too (`--codex-disable`):
	// enabled = false in ~/.codex/config.toml, which takes the skill's
	// $NAME and picker entry from the user as well.
	CodexDisable bool
}

// Result is what adopt or restore did (or, dry, would do).
type Result struct {
	// Hidden are the switches adopt wrote; Shown those restore took back.
	Hidden []HiddenSwitch `json:"hidden"`
	Shown  []HiddenSwitch `json:"shown"`
	// Already counts the skills an earlier adopt hid.
	Already int `json:"already,omitempty"`
	// Done are the skills an earlier megagit moved into a registry that
	// went back to their agent's folder.
	Done []Adopted `json:"moved_back"`
	// Skipped are skills left where they are, with why.
	Skipped []Skip `json:"skipped"`
	// Left counts the adopted skills restore was not asked for, by scope.
	Left map[string]int `json:"left,omitempty"`
}

// Skip is a skill adopt or restore left alone.
type Skip struct {
	Name   string `json:"name"`
	From   string `json:"from"`
	Reason string `json:"reason"`
}

// scopes says which scopes o asks for: project and user.
func (w *space) scopes(o Options) (project, user bool) {
	switch o.Scope {
	case "":
		return !w.IsUserRegistry(), w.IsUserRegistry()
	case workspace.KindProject:
		return true, false
	case workspace.KindUser:
		return false, true
	}
	return true, true
}

// Adopt hides the skills megagit routes from the agents' own listings,
// through each agent's per-skill setting (hide), so the agent no longer
// lists every skill in every prompt and megagit injects the ones a prompt
// needs; no skill file moves. Skills an earlier megagit moved into a
// registry go back to their agent's folder first (restoreMoved), and are
// then hidden the same way. `Restore` undoes it.
func Adopt(w *workspace.Workspace, o Options) (Result, error) { return spaceOf(w).adopt(o) }

func (w *space) adopt(o Options) (Result, error) {
	res := Result{Hidden: []HiddenSwitch{}, Shown: []HiddenSwitch{}, Done: []Adopted{}, Skipped: []Skip{}, Left: map[string]int{}}
	moved := o
	moved.Agent = "" // whichever agent's: the folders must be whole again
	if err := w.restoreMoved(moved, &res); err != nil {
		return res, err
	}
	res.Left = nil
	if o.DryRun && len(res.Done) > 0 {
		// What is hidden is read from the folders the skills are not back
		// in yet: say so rather than guess.
		return res, nil
	}
	return res, w.hide(o, &res)
}
