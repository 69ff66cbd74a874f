package install

import (
	"encoding/json"
	"errors"
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

// namesRegistry says whether a hook command names its registry: -C, or
// the user registry of a user-scope install (--user-registry).
func namesRegistry(command string) bool {
	for _, w := range splitWords(command) {
		if w == "-C" || strings.HasPrefix(w, "-C=") || w == hook.UserRegistryFlag || strings.HasPrefix(w, hook.UserRegistryFlag+"=") {
			return true
		}
	}
	return false
}

// stepsAside says whether a user-scope hook command gives way to a
// project's own (it names the user registry, hook.Locate).
func stepsAside(command string) bool {
	for _, w := range splitWords(command) {
		if w == hook.UserRegistryFlag || strings.HasPrefix(w, hook.UserRegistryFlag+"=") {
			return true
		}
	}
	return false
}

// maxShownProjects bounds the projects a check names.
const maxShownProjects = 5

// UserHookCheck looks at the hooks of every agent's user settings: one
// that names no registry (installed by an older megagit) routes only in
// projects with a registry of their own and injects nothing in the
// others, which it names from the agents' lists of projects. ok is false
// when no agent has user-scope hooks (nothing to say).
func UserHookCheck(home string) (c doctor.Check, ok bool) {
	var unpinned, fixes []string
	for _, agent := range hook.Agents {
		p, err := SettingsPath(agent, ScopeUser, "", home)
		if err != nil {
			continue
		}
		_, data, err := readSettings(p)
		if err != nil || len(data) == 0 {
			continue
		}
		for _, cmd := range ourCommands(data) {
			ok = true
			if hook.HookKind(cmd) == "prompt" && !namesRegistry(cmd) {
				unpinned = append(unpinned, fmt.Sprintf("%s (%s)", agent, tildePath(p, home)))
				fixes = append(fixes, fmt.Sprintf("`megagit hook install --agent %s --scope user`", agent))
				break
			}
		}
	}
	if !ok {
		return doctor.Check{}, false
	}
	if len(unpinned) == 0 {
		return doctor.Check{Name: "user hooks", Status: doctor.OK, Detail: "your user-scope hooks name the registry they route with where a project has none"}, true
	}
	detail := "your user-scope hooks of " + strings.Join(unpinned, ", ") + " name no registry: in a project without a registry of its own they inject nothing"
	if bare := projectsWithoutRegistry(home); len(bare) > 0 {
		shown := bare
		if len(shown) > maxShownProjects {
			shown = shown[:maxShownProjects]
		}
		detail += "; that is, in " + strings.Join(shown, ", ")
		if n := len(bare) - len(shown); n > 0 {
			detail += fmt.Sprintf(" and %d more", n)
		}
	}
	return doctor.Check{Name: "user hooks", Status: doctor.Fail, Detail: detail,
		Hint: "run " + strings.Join(fixes, ", ") + " again: the hooks then name your user registry (created on first use), which routes your personal skills wherever a project has no registry"}, true
}

func tildePath(p, home string) string {
	if rest, ok := strings.CutPrefix(p, home+string(os.PathSeparator)); ok && home != "" {
		return "~/" + filepath.ToSlash(rest)
	}
	return p
}

// projectsWithoutRegistry are the projects the agents know of (Claude
// Code's ~/.claude.json, Codex's ~/.codex/config.toml, Gemini CLI's
// ~/.gemini/trustedFolders.json) that still exist and have no megagit
// registry, sorted, as ~/ paths.
func projectsWithoutRegistry(home string) []string {
	var out []string
	for _, dir := range KnownProjects(home) {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if _, err := local.Find(dir); errors.Is(err, local.ErrNotRegistry) {
			out = append(out, tildePath(dir, home))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// KnownProjects are the folders the agents have worked in, as their own
// files list them (absolute paths only; unreadable files are skipped).
func KnownProjects(home string) []string {
	var out []string
	add := func(p string) {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	if _, data, err := readSettings(filepath.Join(home, ".claude.json")); err == nil && len(data) > 0 {
		var v struct {
			Projects map[string]json.RawMessage `json:"projects"`
		}
		if json.Unmarshal(data, &v) == nil {
			for p := range v.Projects {
				add(p)
			}
		}
	}
	if _, data, err := readSettings(filepath.Join(home, ".codex", "config.toml")); err == nil && len(data) > 0 {
		var v struct {
			Projects map[string]any `toml:"projects"`
		}
		if toml.Unmarshal(data, &v) == nil {
			for p := range v.Projects {
				add(p)
			}
		}
	}
	if _, data, err := readSettings(filepath.Join(home, ".gemini", "trustedFolders.json")); err == nil && len(data) > 0 {
		var v map[string]any
		if json.Unmarshal(data, &v) == nil {
			for p := range v {
				add(p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
